package io.acceld.mesos.scheduler;

import static io.acceld.mesos.scheduler.MasterFixture.gpuFramework;
import static io.acceld.mesos.scheduler.MasterFixture.scalar;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.scheduler.MasterFixture.Scheduler;
import io.acceld.proto.mesos.v1.Filters;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.TestDevices;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offers made while ACCEPTs lease devices: the allocation (on the master's thread, woken by tasks
 * ending) must never offer a device an ACCEPT has just leased. The harness found it did, when the
 * allocation read the ledger before taking the master's lock: a framework launching short tasks
 * into every offer saw TASK_DROPPED "held by Mesos task" for about one task in twelve.
 */
class ReofferRaceTest {
  private static final int ROUNDS = 100;

  @TempDir Path root;

  private MasterFixture m;

  @AfterEach
  void stop() throws Exception {
    if (m != null) {
      m.close();
    }
  }

  @Test
  void aFrameworkLaunchingIntoEveryOfferWhileTasksEndIsNeverOfferedALeasedGpu() throws Exception {
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      devices.add(TestDevices.nvidia(i, i / 4));
    }
    m = new MasterFixture(root, devices);
    Scheduler s = m.subscribe(gpuFramework());
    List<TaskStatus> dropped = new ArrayList<>();
    int launched = 0;
    for (int round = 0; round < ROUNDS; round++) {
      Offer offer = nextOffer(s, dropped);
      int gpus = (int) Math.round(MasterFixtureScalars.of(offer, "gpus"));
      if (gpus == 0) {
        // What was left after a launch; GPUs come back with CPUs once tasks end.
        decline(s, offer);
        continue;
      }
      Offer.Operation.Launch.Builder launch = Offer.Operation.Launch.newBuilder();
      List<String> ids = new ArrayList<>();
      for (int t = 0; t < gpus; t++) {
        String id = "short-" + (++launched);
        ids.add(id);
        launch.addTaskInfos(
            TaskInfo.newBuilder()
                .setName(id)
                .setTaskId(TaskID.newBuilder().setValue(id))
                .setAgentId(m.agent())
                .setCommand(io.acceld.proto.mesos.v1.CommandInfo.newBuilder().setValue("true"))
                .addResources(scalar("cpus", 0.1))
                .addResources(scalar("mem", 32))
                .addResources(scalar("gpus", 1)));
      }
      Call.Builder accept = MasterFixture.accept(offer.getId(), launch);
      accept.getAcceptBuilder().setFilters(Filters.newBuilder().setRefuseSeconds(0));
      assertThat(m.call(s, accept)).isInstanceOf(Reply.Accepted.class);
      for (String id : ids) {
        // Ends as soon as it runs, so the master re-allocates while the next ACCEPT comes in.
        m.launcher.finish(s.id(), TaskID.newBuilder().setValue(id).build());
      }
    }
    assertThat(dropped).as("tasks dropped for devices their offer held").isEmpty();
    assertThat(launched).isGreaterThan(ROUNDS);
  }

  private static Offer nextOffer(Scheduler s, List<TaskStatus> dropped) {
    while (true) {
      Event e = s.events().next();
      if (e.getType() == Event.Type.OFFERS) {
        return e.getOffers().getOffers(0);
      }
      if (e.getType() == Event.Type.UPDATE
          && e.getUpdate().getStatus().getState() == TaskState.TASK_DROPPED) {
        dropped.add(e.getUpdate().getStatus());
      }
    }
  }

  private void decline(Scheduler s, Offer offer) {
    Call.Builder decline =
        Call.newBuilder()
            .setType(Call.Type.DECLINE)
            .setDecline(
                Call.Decline.newBuilder()
                    .addOfferIds(offer.getId())
                    .setFilters(Filters.newBuilder().setRefuseSeconds(1)));
    assertThat(m.call(s, decline)).isInstanceOf(Reply.Accepted.class);
  }

  /** The scalar {@code name} of an offer. */
  private static final class MasterFixtureScalars {
    static double of(Offer offer, String name) {
      return offer.getResourcesList().stream()
          .filter(r -> r.getName().equals(name))
          .mapToDouble(r -> r.getScalar().getValue())
          .sum();
    }
  }
}
