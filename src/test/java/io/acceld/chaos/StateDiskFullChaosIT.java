package io.acceld.chaos;

import static io.acceld.testing.mesos.MesosCalls.accept;
import static io.acceld.testing.mesos.MesosCalls.commandTask;
import static io.acceld.testing.mesos.MesosCalls.framework;
import static io.acceld.testing.mesos.MesosCalls.kill;
import static io.acceld.testing.mesos.MesosCalls.scalar;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.ledger.LeaseCheckpoint;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.Eventually;
import io.acceld.testing.SmallTmpfs;
import io.acceld.testing.Waits;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10: a full {@code --state-dir} disk during kubelet Allocates and Mesos launches. While it
 * is full the agent keeps serving: Allocates are answered (the kubelet's leases are kept in memory
 * and come back from pod-resources after a crash, by design), {@code /healthz} stays 200 and says
 * the checkpoint cannot be written, and a Mesos launch is never acknowledged without a durable
 * lease: it ends TASK_DROPPED with a message saying why and its device is free again. Once space
 * returns the checkpoint holds every lease and launches run again. Rounds alternate full and free.
 *
 * <p>The state directory is a 256 KiB tmpfs the test mounts ({@link SmallTmpfs}), as {@code
 * CheckpointDiskIT} does for the checkpoint writer alone.
 */
class StateDiskFullChaosIT {
  static final String GPU = ChaosNode.GPU;
  static final int ROUNDS = Integer.getInteger("acceld.diskFullRounds", 2);
  static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path root;
  SmallTmpfs disk;
  Path state;
  ChaosNode node;

  @BeforeEach
  void mount() throws Exception {
    disk = SmallTmpfs.mount(root.resolve("state"), "256k");
    state = disk.dir();
  }

  @AfterEach
  void unmount() throws Exception {
    if (node != null) {
      node.close();
    }
    if (disk != null) {
      disk.close();
    }
  }

  @Test
  void aFullStateDiskFailsLaunchesCleanlyKeepsServingAndRecovers() throws Exception {
    ChaosSeed seed = ChaosSeed.of("StateDiskFullChaosIT");
    Random random = seed.random();
    node = ChaosNode.start(root, Map.of("state-dir", state.toString()));
    node.kubelet.awaitDevices(GPU, l -> l.size() == 8, WAIT);
    ChaosFramework fw =
        ChaosFramework.subscribe(
            node.mesosPort(), framework("disk-full", true), Optional.empty(), WAIT);
    Instant started = Instant.now();
    for (int round = 0; round < ROUNDS; round++) {
      String what = seed.tag("round " + round);
      Path filler = disk.fill();

      // Allocate while full: answered, leased in memory.
      String allocated = freeGpu(random);
      node.kubelet.allocateOne(GPU, List.of(allocated));
      Eventually.await(
          what + ": /healthz says the checkpoint cannot be written",
          WAIT,
          () ->
              node.get("/healthz")
                  .filter(r -> r.statusCode() == 200)
                  .map(HttpResponse::body)
                  .filter(b -> b.contains("cannot be written") && b.contains("No space left"))
                  .isPresent());
      assertThat(node.devices().get(allocated).kubelet()).as(what + ": held in memory").isTrue();

      // A launch while full: never acknowledged, dropped with the reason, its device free.
      String task = "full-" + round;
      TaskStatus dropped = launch(fw, task);
      assertThat(dropped.getState()).as(what + ": " + dropped).isEqualTo(TaskState.TASK_DROPPED);
      assertThat(dropped.getMessage()).as(what).contains("persist");
      assertThat(fw.states.get(task)).isEqualTo(TaskState.TASK_DROPPED);
      assertThat(node.devices().values())
          .as(what + ": no device held by the dropped task")
          .noneMatch(h -> h.holder().endsWith("/" + task));

      // Space returns: everything durable, launches run again.
      Files.delete(filler);
      Eventually.await(
          what + ": the checkpoint holds the Allocate's lease once space returns",
          WAIT,
          () -> checkpointHolds(allocated));
      Eventually.await(
          what + ": /healthz clean again",
          WAIT,
          () ->
              node.get("/healthz")
                  .map(HttpResponse::body)
                  .filter(b -> !b.contains("cannot be written"))
                  .isPresent());
      String ok = "ok-" + round;
      TaskStatus running = launch(fw, ok);
      assertThat(running.getState())
          .as(what + ": " + running)
          .isIn(TaskState.TASK_STARTING, TaskState.TASK_RUNNING);
      Eventually.await(
          what + ": the task running",
          WAIT,
          () -> {
            pump(fw);
            return fw.states.get(ok) == TaskState.TASK_RUNNING;
          });
      fw.call(kill(fw.id, ok));
      Eventually.await(
          what + ": the task killed",
          WAIT,
          () -> {
            pump(fw);
            return fw.states.get(ok) == TaskState.TASK_KILLED;
          });
    }
    System.out.printf(
        "StateDiskFullChaosIT: %d rounds of a full state disk in %d s%n",
        ROUNDS, Duration.between(started, Instant.now()).toSeconds());
  }

  private boolean checkpointHolds(String device) {
    try {
      return new LeaseCheckpoint(state)
          .read().stream().anyMatch(l -> l.slot().toString().contains(device));
    } catch (Exception e) {
      return false;
    }
  }

  private String freeGpu(Random random) throws Exception {
    List<String> free =
        node.devices().values().stream().filter(Holding::free).map(Holding::id).toList();
    return free.get(random.nextInt(free.size()));
  }

  /** ACCEPTs the newest GPU offer with one one-GPU task; its first update after the launch. */
  /**
   * Launches {@code task} on an offer with GPUs and returns its first update. An offer the agent
   * rescinded meanwhile (the kubelet's Allocate just took one of its GPUs; on a loaded machine the
   * rescind can arrive after the framework picked the offer) is answered TASK_LOST with
   * REASON_INVALID_OFFERS, as Mesos answers it; like a real framework, the launch is then tried
   * again on a fresh offer.
   */
  private TaskStatus launch(ChaosFramework fw, String task) throws Exception {
    Set<String> used = new HashSet<>();
    for (int attempt = 0; attempt < 5; attempt++) {
      Offer offer = fw.awaitOffer(used, WAIT);
      used.add(offer.getId().getValue());
      TaskInfo info =
          commandTask(
              task,
              offer.getAgentId(),
              "exec sleep 300",
              List.of(scalar("cpus", 0.1), scalar("gpus", 1)));
      int before = fw.events.seen().size();
      fw.call(accept(fw.id, offer, List.of(info)));
      TaskStatus status = firstUpdate(fw, task, before);
      if (status.getState() != TaskState.TASK_LOST
          || status.getReason() != TaskStatus.Reason.REASON_INVALID_OFFERS) {
        return status;
      }
    }
    throw new AssertionError(task + ": five offers in a row were rescinded before the ACCEPT");
  }

  private TaskStatus firstUpdate(ChaosFramework fw, String task, int from) throws Exception {
    long deadline = System.nanoTime() + Waits.scaled(WAIT).toNanos();
    while (System.nanoTime() < deadline) {
      List<Event> seen = fw.events.seen();
      for (Event e : seen.subList(from, seen.size())) {
        if (e.getType() == Event.Type.UPDATE
            && e.getUpdate().getStatus().getTaskId().getValue().equals(task)) {
          pump(fw);
          return e.getUpdate().getStatus();
        }
      }
      fw.events.awaitMoreThan(seen.size(), Duration.ofMillis(100)); // the next event
    }
    throw new AssertionError("no update for " + task + " within " + WAIT);
  }

  private static void pump(ChaosFramework fw) {
    try {
      fw.pump();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
