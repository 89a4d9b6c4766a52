package io.acceld.mesos.scheduler;

import static io.acceld.mesos.scheduler.MasterFixture.gpuFramework;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.ledger.LeaseResult;
import io.acceld.mesos.scheduler.MasterFixture.Scheduler;
import io.acceld.mesos.tasks.Launch;
import io.acceld.mesos.tasks.LaunchedTask;
import io.acceld.mesos.tasks.TaskStates;
import io.acceld.mesos.tasks.TaskView;
import io.acceld.proto.mesos.v1.Filters;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.Eventually;
import io.acceld.testing.TestDevices;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A property over many racing rounds: Mesos ACCEPTs and kubelet-side leases for the same GPUs at
 * the same instant never both get a device. After each round: every device has one holder at most,
 * every GPU a launched task was given is leased to that task alone, and no kubelet grant overlaps a
 * launched task's devices.
 */
class NoDoubleLeaseTest {
  static final int ROUNDS = 100;
  static final int GPUS = 4;

  @TempDir Path root;
  MasterFixture m;
  final ExecutorService threads = Executors.newFixedThreadPool(4);

  @AfterEach
  void stop() {
    threads.shutdownNow();
    m.close();
  }

  @Test
  void mesosAndTheKubeletNeverHoldTheSameGpu() throws Exception {
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < GPUS; i++) {
      devices.add(TestDevices.nvidia(i, i % 2));
    }
    m = new MasterFixture(root, devices);
    Scheduler s = m.subscribe(gpuFramework());
    Random random = new Random(42);
    int launchedTasks = 0;
    int kubeletWins = 0;

    Set<String> done = new HashSet<>();
    for (int round = 0; round < ROUNDS; round++) {
      Offer offer = freshOffer(s, done);
      done.add(offer.getId().getValue());
      int launchesBefore = m.launcher.launches.size();
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> racers = new ArrayList<>();
      final int r = round;
      // Mesos: two tasks of one GPU each, on whatever the offer held.
      TaskInfo.Builder a = m.task("r" + r + "-a", 1);
      TaskInfo.Builder b = m.task("r" + r + "-b", 1);
      racers.add(
          threads.submit(
              () -> {
                go.await();
                Call.Builder accept = MasterFixture.accept(offer, a, b);
                accept.getAcceptBuilder().setFilters(Filters.newBuilder().setRefuseSeconds(0));
                return m.call(s, accept);
              }));
      // The kubelet: Allocates for random GPUs, at the same instant.
      List<Holder> kubeletHolders = new ArrayList<>();
      List<LeaseResult> kubeletResults = new CopyOnWriteArrayList<>();
      for (int k = 0; k < 3; k++) {
        Holder holder = new Holder.KubeletPending("r" + r + "-k" + k);
        kubeletHolders.add(holder);
        String gpu = TestDevices.uuid(random.nextInt(GPUS));
        racers.add(
            threads.submit(
                () -> {
                  go.await();
                  kubeletResults.add(
                      m.ledger.lease(holder, List.of(ReplicaId.whole(gpu)), "Allocate"));
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : racers) {
        Object reply = f.get();
        if (reply != null) {
          assertThat(reply).isInstanceOf(io.acceld.mesos.http.Reply.Accepted.class);
        }
      }
      // Every task of the round has a first answer: launched (STARTING) or refused.
      for (String id : List.of("r" + r + "-a", "r" + r + "-b")) {
        s.events()
            .next(
                e ->
                    e.getType() == Event.Type.UPDATE
                        && e.getUpdate().getStatus().getTaskId().getValue().equals(id));
      }

      checkNoDoubleLease(
          m.launcher.launches.subList(launchesBefore, m.launcher.launches.size()), kubeletResults);
      launchedTasks += m.launcher.launches.size() - launchesBefore;
      kubeletWins += (int) kubeletResults.stream().filter(LeaseResult::granted).count();

      // Clean up: tasks end, pods go; everything is free for the next round.
      for (TaskView t : m.book.tasks()) {
        if (!t.isTerminal()) {
          m.launcher.finish(s.id(), t.task().getTaskId());
        }
      }
      kubeletHolders.forEach(m.ledger::release);
      Eventually.await("round " + r + " released", () -> m.ledger.current().leases().isEmpty());
      Eventually.await(
          "round " + r + " tasks ended",
          () -> m.book.tasks().stream().allMatch(t -> TaskStates.isTerminal(t.state())));
    }
    assertThat(launchedTasks).as("Mesos won some races").isPositive();
    assertThat(kubeletWins).as("the kubelet won some races").isPositive();
  }

  /**
   * Declines every offer still outstanding, then waits for one holding every GPU: each round starts
   * from the whole node, so the racers contend for the same GPUs.
   */
  private Offer freshOffer(Scheduler s, Set<String> done) {
    while (true) {
      Set<String> rescinded = new HashSet<>();
      List<Offer> offered = new ArrayList<>();
      for (Event e : s.events().all()) {
        if (e.getType() == Event.Type.RESCIND) {
          rescinded.add(e.getRescind().getOfferId().getValue());
        } else if (e.getType() == Event.Type.OFFERS) {
          offered.addAll(e.getOffers().getOffersList());
        }
      }
      for (Offer o : offered) {
        String id = o.getId().getValue();
        if (done.contains(id) || rescinded.contains(id)) {
          continue;
        }
        if (MasterFixture.amount(o, "gpus") == GPUS) {
          return o;
        }
        done.add(id);
        m.call(
            s,
            Call.newBuilder()
                .setType(Call.Type.DECLINE)
                .setDecline(
                    Call.Decline.newBuilder()
                        .addOfferIds(o.getId())
                        .setFilters(Filters.newBuilder().setRefuseSeconds(0))));
      }
      s.events().next(Event.Type.OFFERS);
    }
  }

  private void checkNoDoubleLease(List<Launch> launches, List<LeaseResult> kubelet) {
    Map<String, Set<Holder>> holders = new HashMap<>();
    for (Lease l : m.ledger.current().leases()) {
      holders.computeIfAbsent(l.deviceId(), d -> new HashSet<>()).add(l.holder());
    }
    holders.forEach((d, h) -> assertThat(h).as("holders of %s", d).hasSize(1));
    Set<String> mesosDevices = new HashSet<>();
    for (Launch launch : launches) {
      for (LaunchedTask t : launch.tasks()) {
        Holder task =
            new Holder.MesosTask(
                launch.framework().getId().getValue(), t.task().getTaskId().getValue());
        for (String d : t.deviceIds()) {
          assertThat(mesosDevices.add(d)).as("%s given to two tasks", d).isTrue();
          assertThat(holders.get(d)).as("holder of %s", d).containsExactly(task);
        }
      }
    }
    for (LeaseResult result : kubelet) {
      if (result instanceof LeaseResult.Granted g) {
        for (Lease l : g.leases()) {
          assertThat(mesosDevices)
              .as("kubelet got a Mesos task's GPU")
              .doesNotContain(l.deviceId());
        }
      }
    }
  }
}
