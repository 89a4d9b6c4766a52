package io.acceld.chaos;

import static io.acceld.kubelet.podresources.FakePodResources.container;
import static io.acceld.kubelet.podresources.FakePodResources.pod;
import static io.acceld.testing.mesos.MesosCalls.accept;
import static io.acceld.testing.mesos.MesosCalls.commandTask;
import static io.acceld.testing.mesos.MesosCalls.framework;
import static io.acceld.testing.mesos.MesosCalls.kill;
import static io.acceld.testing.mesos.MesosCalls.scalar;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.kubelet.podresources.FakePodResources;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.proto.podresources.v1.PodResources;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.Eventually;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.kubelet.Registration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10: {@code kill -9} of the shipped agent, 20 times, each at a random instant of a burst of
 * kubelet Allocate calls and a Mesos ACCEPT launching tasks. After each restart the ledger (the
 * operator's {@code /devices}) must show every Allocate that was answered still held by the
 * kubelet, every Mesos task the framework heard of (an update) still holding its device or reported
 * terminal to the framework, no device of one side held by the other, and, once the pods are gone
 * from pod-resources and the tasks killed, every device free again: nothing lost, nothing doubled.
 * As on a node, pod-resources lists each answered Allocate's pod (the kubelet admits the container
 * once Allocate answers); the kubelet's Allocate leases are written behind the answer, so one lost
 * in the crash must come back from pod-resources before Mesos is offered it.
 */
class AgentKillNineChaosIT {
  static final String GPU = "nvidia.com/gpu";

  /**
   * Ten rounds in the suite: each is a fresh agent process, a burst, a kill -9 and a restart (about
   * 6 s on 2 cores now that tasks start and end in cgroup fences), and the seed varies the kill
   * instant per run. {@code -Dacceld.killNineRounds=100} for a long soak.
   */
  static final int ROUNDS = Integer.getInteger("acceld.killNineRounds", 10);

  static final Duration WAIT = Duration.ofSeconds(20);

  /**
   * How long into a burst the kill may land; the calls start within the first two thirds of it, so
   * that the kill lands before, among and after their answers.
   */
  static final int KILL_WITHIN_MILLIS = 600;

  static final Set<TaskState> HEARD =
      EnumSet.of(TaskState.TASK_STAGING, TaskState.TASK_STARTING, TaskState.TASK_RUNNING);
  static final Set<TaskState> TERMINAL =
      EnumSet.of(
          TaskState.TASK_FINISHED,
          TaskState.TASK_FAILED,
          TaskState.TASK_KILLED,
          TaskState.TASK_LOST,
          TaskState.TASK_DROPPED,
          TaskState.TASK_GONE,
          TaskState.TASK_ERROR);

  /**
   * Tasks reported terminal after a restart whose process still runs: their GPU is free, so it
   * could be leased twice. A kill between the spawn and the container record used to leave one (the
   * wrapper now waits for the agent's go, sent after the record).
   */
  final List<String> orphans = Collections.synchronizedList(new ArrayList<>());

  @TempDir Path dir;
  final List<AutoCloseable> closers = new ArrayList<>();
  AgentProcess agent;
  int run;

  @AfterEach
  void cleanUp() throws Exception {
    if (agent != null) {
      agent.close();
    }
    Path pids = dir.resolve("pids");
    if (Files.isDirectory(pids)) {
      try (Stream<Path> files = Files.list(pids)) {
        for (Path f : files.toList()) {
          ProcessHandle.of(Long.parseLong(Files.readString(f).strip()))
              .ifPresent(ProcessHandle::destroyForcibly);
        }
      }
    }
    for (int i = closers.size() - 1; i >= 0; i--) {
      closers.get(i).close();
    }
  }

  /**
   * The flags of every start: the eight-GPU fixture node and the NVML double, written once (not
   * {@code --simulate}, which writes a fresh node tree at every start), the same state directory,
   * and the Mesos bridge on a fixed port.
   */
  Map<String, String> flags(KubeletDouble kubelet, PodResourcesSocket pods, int mesosPort) {
    FixtureNode node = Fixtures.eightGpuNode(dir.resolve("node"));
    NvmlDouble nvml = NvmlDouble.create(dir.resolve("nvml"), node.nvmlScenario());
    Map<String, String> flags = DaemonFlags.withMesos(dir, node, nvml, kubelet, "1s");
    flags.remove("metrics-address"); // fixed by AgentProcess, the same across restarts
    flags.put("pod-resources-socket", pods.path().toString());
    flags.put("mesos-address", "127.0.0.1:" + mesosPort);
    // Leases of Allocates that were never answered, hence never used by a pod, go quickly.
    flags.put("kubelet-pending-lease-ttl", "1s");
    return flags;
  }

  /** What one burst got answered: kubelet devices, and tasks the framework heard of. */
  record Outcome(Set<String> allocated, Set<String> tasks) {}

  /** The kubelet's side of the node: every answered Allocate's pod shows in pod-resources. */
  static final class Pods {
    final FakePodResources service;
    final Map<String, PodResources> byDevice = new ConcurrentHashMap<>();

    Pods(FakePodResources service) {
      this.service = service;
    }

    synchronized void admitted(String device) {
      byDevice.put(device, pod("chaos", "pod-" + device, container("main", GPU, device)));
      publish();
    }

    synchronized void allGone() {
      byDevice.clear();
      publish();
    }

    private void publish() {
      service.answer(FakePodResources.pods(byDevice.values().toArray(PodResources[]::new)));
    }
  }

  @Test
  void twentyKillNinesDuringAllocatesAndLaunchesLoseNoLeaseAndHoldNoDeviceTwice() throws Exception {
    ChaosSeed seed = ChaosSeed.of("AgentKillNineChaosIT");
    Random random = seed.random();
    int mesosPort = AgentProcess.freePort();
    int metricsPort = AgentProcess.freePort();
    KubeletDouble kubelet =
        keep(
            KubeletDouble.builder(dir.resolve("kubelet/device-plugins"))
                .rpcWatchdog(Duration.ofSeconds(5))
                .start());
    PodResourcesSocket podSocket =
        keep(new PodResourcesSocket(dir.resolve("kubelet/pod-resources/kubelet.sock")));
    podSocket.serve();
    Pods pods = new Pods(podSocket.service());
    Files.createDirectories(dir.resolve("pids"));
    FrameworkInfo info =
        framework("kill-nine-chaos", true).toBuilder().setFailoverTimeout(600).build();
    Map<String, String> flags = flags(kubelet, podSocket, mesosPort);

    agent = AgentProcess.start(flags, metricsPort, dir.resolve("agent-" + (run++) + ".log"));
    Optional<FrameworkID> frameworkId = Optional.empty();
    int registrationsBefore = 0;
    int answeredTotal = 0;
    int heardTotal = 0;
    int terminalAfterRestart = 0;
    Instant started = Instant.now();
    for (int round = 0; round < ROUNDS; round++) {
      String what = seed.tag("round " + round);
      awaitServing(kubelet, registrationsBefore, what);
      ChaosFramework fw = ChaosFramework.subscribe(mesosPort, info, frameworkId, WAIT);
      frameworkId = Optional.of(fw.id);
      Map<String, Holding> before = awaitDevices(what);
      assertThat(before.values()).as(what + ": all free at the start").allMatch(Holding::free);
      fw.awaitOffer(Set.of(), WAIT); // the bridge offers again: the kubelet's leases are known

      // The burst: four Allocates of one GPU each and an ACCEPT of three one-GPU tasks, each
      // after a random delay, and a kill at a random instant among them.
      List<String> ids = new ArrayList<>(before.keySet());
      Collections.shuffle(ids, random);
      // A fresh JVM's first call of a kind is slow; warm the plugin's gRPC path without leasing.
      kubelet.getPreferredAllocation(GPU, ids, List.of(), 1);
      Set<String> answered = ConcurrentHashMap.newKeySet();
      List<String> unanswered = Collections.synchronizedList(new ArrayList<>());
      List<Thread> burst = new ArrayList<>();
      for (String device : ids.subList(0, 4)) {
        int delay = random.nextInt(KILL_WITHIN_MILLIS * 2 / 3);
        burst.add(
            started(
                "chaos-allocate-" + device,
                () -> {
                  try {
                    Thread.sleep(delay); // the stimulus's timing, not a wait
                    kubelet.allocateOne(GPU, List.of(device));
                    answered.add(device);
                    pods.admitted(device);
                  } catch (RuntimeException | InterruptedException refusedOrKilled) {
                    // no answer, or a refusal: the kubelet admits no pod
                    unanswered.add(device + ": " + refusedOrKilled);
                  }
                }));
      }
      int acceptDelay = random.nextInt(KILL_WITHIN_MILLIS / 3);
      int thisRound = round;
      burst.add(
          started(
              "chaos-accept",
              () -> {
                try {
                  Thread.sleep(acceptDelay);
                  launchUntilAccepted(fw, thisRound);
                } catch (Exception | AssertionError killed) {
                  // the agent died under the calls
                  unanswered.add("ACCEPT: " + killed);
                }
              }));
      int killAt = random.nextInt(KILL_WITHIN_MILLIS);
      Thread.sleep(killAt); // the kill's random instant
      agent.killNine();
      for (Thread t : burst) {
        t.join(10_000);
      }
      Set<String> heard = new HashSet<>();
      Map<String, TaskState> lastHeard = new HashMap<>();
      for (Event e : fw.events.seen()) {
        if (e.getType() == Event.Type.UPDATE
            && HEARD.contains(e.getUpdate().getStatus().getState())) {
          heard.add(e.getUpdate().getStatus().getTaskId().getValue());
          lastHeard.put(
              e.getUpdate().getStatus().getTaskId().getValue(),
              e.getUpdate().getStatus().getState());
        }
      }
      fw.events.close();
      Outcome outcome = new Outcome(Set.copyOf(answered), heard);
      System.out.printf(
          "%s: kill at %d ms: %d Allocates answered, %d tasks heard of, %d calls not answered%n",
          what, killAt, answered.size(), heard.size(), unanswered.size());
      answeredTotal += outcome.allocated().size();
      heardTotal += outcome.tasks().size();

      registrationsBefore = kubelet.registrationHistory(GPU).size();
      long restartedAt = System.nanoTime();
      agent = AgentProcess.start(flags, metricsPort, dir.resolve("agent-" + (run++) + ".log"));
      String after = what + " after the kill (" + outcome + ")";

      // At once: no device the kubelet was given is held by a Mesos task.
      Map<String, Holding> first = awaitDevices(after);
      for (String d : outcome.allocated()) {
        assertThat(first.get(d).mesos())
            .as(after + ": %s, given to the kubelet, is held by Mesos: %s", d, first)
            .isFalse();
      }
      long answeringAt = System.nanoTime();
      ChaosFramework again = ChaosFramework.subscribe(mesosPort, info, frameworkId, WAIT);
      Eventually.await(
          after + ": every answered Allocate held by the kubelet, every heard task held or told",
          WAIT,
          () -> {
            try {
              again.pump();
            } catch (Exception e) {
              throw new AssertionError(e);
            }
            Map<String, Holding> now = agent.devices().orElse(Map.of());
            if (now.isEmpty()) {
              return false;
            }
            for (String d : outcome.allocated()) {
              assertThat(now.get(d).mesos()).as(after + ": %s held by Mesos: %s", d, now).isFalse();
              if (!now.get(d).kubelet()) {
                return false;
              }
            }
            for (String task : outcome.tasks()) {
              String holder = again.id.getValue() + "/" + task;
              boolean holds = now.values().stream().anyMatch(h -> h.holder().equals(holder));
              boolean told = TERMINAL.contains(again.states.get(task));
              if (!holds && !told) {
                return false;
              }
            }
            return true;
          });
      for (String t : outcome.tasks()) {
        if (TERMINAL.contains(again.states.get(t))) {
          terminalAfterRestart++;
          System.out.printf(
              "  %s: heard %s before the kill, then %s (%s)%n",
              t, lastHeard.get(t), again.states.get(t), again.messages.get(t));
          // Reported gone, so its device is free: its process must not run on with the GPU.
          Path pidFile = dir.resolve("pids/" + t + ".pid");
          if (Files.exists(pidFile) && stillRuns(Files.readString(pidFile).strip())) {
            String orphan =
                after + ": " + t + " reported " + again.states.get(t) + " but its process runs on";
            orphans.add(orphan);
          }
        }
      }

      long checkedAt = System.nanoTime();
      // Clean up for the next round: the pods go, the tasks are killed; everything must come free
      // (the leases of Allocates never answered expire after the pending TTL).
      pods.allGone();
      Map<String, Holding> held = agent.devices().orElseThrow();
      for (Holding h : held.values()) {
        if (h.mesos()) {
          again.call(kill(again.id, h.holder().substring(h.holder().indexOf('/') + 1)));
        }
      }
      Eventually.await(
          after + ": every device free once pods and tasks are gone",
          WAIT,
          () -> {
            try {
              again.pump();
            } catch (Exception e) {
              throw new AssertionError(e);
            }
            return agent
                .devices()
                .map(m -> m.values().stream().allMatch(Holding::free))
                .orElse(false);
          });
      again.events.close();
      frameworkId = Optional.of(again.id);
      System.out.printf(
          "  answering after %d ms, checked after %d ms, all free after %d ms%n",
          (answeringAt - restartedAt) / 1_000_000,
          (checkedAt - restartedAt) / 1_000_000,
          (System.nanoTime() - restartedAt) / 1_000_000);
    }
    Duration total = Duration.between(started, Instant.now());
    System.out.printf(
        "AgentKillNineChaosIT: %d kill -9 rounds in %d s; %d Allocates answered and %d tasks heard"
            + " of before the kills, all held after (%d tasks reported terminal instead); orphaned"
            + " task processes: %d %s%n",
        ROUNDS,
        total.toSeconds(),
        answeredTotal,
        heardTotal,
        terminalAfterRestart,
        orphans.size(),
        orphans);
    assertThat(orphans).as("tasks reported gone whose process runs on with the GPU").isEmpty();
  }

  /**
   * As a framework does: ACCEPTs the newest offer with three one-GPU tasks, and again with the next
   * offer when the kubelet's leases made the bridge rescind that one (the tasks come back
   * TASK_LOST, invalid offer), a few times.
   */
  private void launchUntilAccepted(ChaosFramework fw, int round) throws Exception {
    Set<String> used = new HashSet<>();
    for (int attempt = 0; attempt < 4; attempt++) {
      Offer offer = fw.awaitOffer(used, Duration.ofSeconds(2));
      used.add(offer.getId().getValue());
      List<TaskInfo> tasks = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        String task = "r" + round + "-a" + attempt + "-t" + t;
        tasks.add(
            commandTask(
                task,
                offer.getAgentId(),
                "echo $$ > '" + dir.resolve("pids/" + task + ".pid") + "'; exec sleep 300",
                List.of(scalar("cpus", 0.1), scalar("gpus", 1))));
      }
      fw.call(accept(fw.id, offer, tasks));
      Map<String, TaskState> first =
          fw.awaitUpdates(tasks.stream().map(t -> t.getTaskId().getValue()).toList(), WAIT);
      if (first.values().stream().anyMatch(st -> st != TaskState.TASK_LOST)) {
        return;
      }
    }
  }

  /** Whether the process of a pid file's contents is alive (a task's own process, by pid). */
  private static boolean stillRuns(String pid) throws InterruptedException {
    if (pid.isEmpty()) {
      return false;
    }
    Optional<ProcessHandle> h = ProcessHandle.of(Long.parseLong(pid));
    if (h.isEmpty()) {
      return false;
    }
    // A process being killed as its task is reported terminal gets a moment to go.
    try {
      h.get().onExit().get(3, java.util.concurrent.TimeUnit.SECONDS);
      return false;
    } catch (java.util.concurrent.TimeoutException stillAlive) {
      return true;
    } catch (java.util.concurrent.ExecutionException e) {
      throw new AssertionError(e);
    }
  }

  private static Thread started(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.start();
    return t;
  }

  private <T extends AutoCloseable> T keep(T c) {
    closers.add(c);
    return c;
  }

  /** The ledger once the (re)started agent answers. */
  private Map<String, Holding> awaitDevices(String what) {
    long deadline = System.nanoTime() + Waits.scaled(WAIT).toNanos();
    while (true) {
      Optional<Map<String, Holding>> d = agent.devices();
      if (d.isPresent() && d.get().size() == 8) {
        return d.get();
      }
      if (System.nanoTime() > deadline || !agent.alive()) {
        throw new AssertionError(what + ": the agent does not answer /devices: " + agent.log());
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** Waits until the kubelet holds a registration newer than #{@code after}, streaming 8 GPUs. */
  private void awaitServing(KubeletDouble kubelet, int after, String what) throws Exception {
    kubelet.await(
        what + ": registered again and streaming eight GPUs; agent log: " + agent.log(),
        () -> {
          Optional<Registration> r = kubelet.registration(GPU);
          if (r.isEmpty() || r.get().sequence() <= after || !kubelet.isConnected(GPU)) {
            return Optional.empty();
          }
          return kubelet.updates(GPU).stream()
              .filter(u -> u.registration() == r.get().sequence())
              .filter(u -> u.devices().size() == 8)
              .findFirst()
              .map(u -> u.devices().stream().map(DeviceState::id).toList());
        },
        WAIT);
  }
}
