package io.acceld.mesos.scheduler;

import static io.acceld.mesos.scheduler.MasterFixture.gpuFramework;
import static io.acceld.mesos.scheduler.MasterFixture.nextUpdate;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.scheduler.MasterFixture.Scheduler;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.Eventually;
import io.acceld.testing.TestDevices;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent stops without any teardown and starts again on the same state directory: the ledger and
 * the task book come back, the framework re-subscribes with its ID, and gets the truth.
 */
class RestartTest {
  @TempDir Path root;
  MasterFixture m;
  final List<Device> devices = List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0));

  @AfterEach
  void stop() {
    m.close();
  }

  /** The first offer the scheduler got, whether or not a test already skipped past it. */
  static Offer anOffer(Scheduler s) {
    Eventually.await("an offer", () -> s.events().types().contains(Event.Type.OFFERS));
    return s.events().all().stream()
        .filter(e -> e.getType() == Event.Type.OFFERS)
        .findFirst()
        .orElseThrow()
        .getOffers()
        .getOffers(0);
  }

  /** Launches t1 on one GPU and leaves its RUNNING update unacknowledged; returns the scheduler. */
  Scheduler runATaskThenStop() throws Exception {
    m = new MasterFixture(root, devices);
    Scheduler s = m.subscribe(gpuFramework().setFailoverTimeout(3600));
    m.call(s, MasterFixture.accept(m.nextOffer(s), m.task("t1", 1)));
    m.acknowledge(s, nextUpdate(s, "t1"));
    assertThat(nextUpdate(s, "t1").getState()).isEqualTo(TaskState.TASK_RUNNING);
    m.close();
    m = new MasterFixture(root, devices);
    return s;
  }

  @Test
  void aSurvivingTaskKeepsItsGpuAndItsUnacknowledgedUpdateIsResent() throws Exception {
    Scheduler before = runATaskThenStop();
    Holder task = new Holder.MesosTask(before.id().getValue(), "t1");
    assertThat(m.ledger.current().leases()).extracting(Lease::holder).containsExactly(task);

    m.book.afterRecovery(Set.of((Holder.MesosTask) task));
    Scheduler s = m.subscribe(before.info().toBuilder());

    assertThat(s.id()).isEqualTo(before.id());
    TaskStatus resent = nextUpdate(s, "t1");
    assertThat(resent.getState()).isEqualTo(TaskState.TASK_RUNNING);
    m.acknowledge(s, resent);
    m.call(
        s,
        Call.newBuilder()
            .setType(Call.Type.RECONCILE)
            .setReconcile(Call.Reconcile.getDefaultInstance()));
    TaskStatus truth =
        s.events()
            .next(e -> e.hasUpdate() && !e.getUpdate().getStatus().hasUuid())
            .getUpdate()
            .getStatus();
    assertThat(truth.getState()).isEqualTo(TaskState.TASK_RUNNING);
    assertThat(MasterFixture.amount(anOffer(s), "gpus"))
        .as("the task's GPU is not offered again")
        .isEqualTo(1);
    assertThat(m.ledger.current().leases()).extracting(Lease::holder).containsExactly(task);
  }

  @Test
  void aTaskWhoseProcessDidNotSurviveIsLostAndItsGpuFreed() throws Exception {
    Scheduler before = runATaskThenStop();

    m.book.afterRecovery(Set.of());
    Scheduler s = m.subscribe(before.info().toBuilder());

    // FIFO: the unacknowledged RUNNING first, then LOST.
    TaskStatus running = nextUpdate(s, "t1");
    assertThat(running.getState()).isEqualTo(TaskState.TASK_RUNNING);
    m.acknowledge(s, running);
    TaskStatus lost = nextUpdate(s, "t1");
    assertThat(lost.getState()).isEqualTo(TaskState.TASK_LOST);
    assertThat(lost.getReason()).isEqualTo(TaskStatus.Reason.REASON_AGENT_RESTARTED);
    assertThat(m.ledger.current().leases()).isEmpty();
    assertThat(MasterFixture.amount(anOffer(s), "gpus")).isEqualTo(2);
  }

  @Test
  void aFrameworkWithLiveTasksIsKnownButDisconnectedAfterTheRestart() throws Exception {
    Scheduler before = runATaskThenStop();
    m.book.afterRecovery(Set.of(new Holder.MesosTask(before.id().getValue(), "t1")));

    // Known (not 400 "Framework cannot be found"), not subscribed: 403 until it re-subscribes.
    Reply reply =
        m.master.handle(
            Call.newBuilder()
                .setFrameworkId(before.id())
                .setType(Call.Type.RECONCILE)
                .setReconcile(Call.Reconcile.getDefaultInstance())
                .build(),
            Optional.of(before.streamId()),
            Optional.empty());
    assertThat(reply).isEqualTo(new Reply.Failure(403, "Framework is not subscribed"));
    assertThat(m.subscribe(before.info().toBuilder()).id()).isEqualTo(before.id());
  }
}
