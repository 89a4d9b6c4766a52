package io.acceld.bench;

import static io.acceld.testing.mesos.MesosCalls.commandTask;
import static io.acceld.testing.mesos.MesosCalls.framework;
import static io.acceld.testing.mesos.MesosCalls.scalar;
import static io.acceld.testing.mesos.MesosCalls.scalarOf;

import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.FileTrees;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Mesos bridge's figures (issue 8), end to end: the real daemon on the eight-GPU fixture with
 * the NVML double, v1 scheduler clients over real HTTP, and the kubelet double on the agent's real
 * device-plugin socket. Four measurements, in order:
 *
 * <ol>
 *   <li>SUBSCRIBE to the first OFFERS event, a new framework each round (torn down after);
 *   <li>ACCEPT to TASK_RUNNING for a command task with one GPU (then killed), acknowledging every
 *       update;
 *   <li>sustained launches: short GPU tasks launched into every offer and run to TASK_FINISHED for
 *       a fixed time, counting finished tasks per minute;
 *   <li>the kubelet's Allocate latency without, with, and again without many subscribed frameworks
 *       receiving heartbeats at a short interval.
 * </ol>
 *
 * <p>Arguments are {@code name=value}: {@code subscribes=200 accepts=300 launchSeconds=60
 * frameworks=100 allocates=3000 heartbeat=100ms}, and {@code stateDir=DIR} for the checkpoints. Run
 * with {@code sh src/jmh/mesos-bench.sh}.
 */
public final class MesosBridgeHarness {
  private static final String GPU = "nvidia.com/gpu";

  private final String hostPort;
  private final KubeletDouble kubelet;
  private final Map<String, String> args;
  private int serial;

  private MesosBridgeHarness(String hostPort, KubeletDouble kubelet, Map<String, String> args) {
    this.hostPort = hostPort;
    this.kubelet = kubelet;
    this.args = args;
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new HashMap<>();
    for (String a : argv) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("expected name=value, got " + a);
      }
      args.put(a.substring(0, eq), a.substring(eq + 1));
    }
    Path root = Files.createTempDirectory("acceld-mesos-bench-");
    List<Path> stateDirs = new ArrayList<>();
    try {
      bench(args, root, stateDirs);
    } finally {
      // Each run leaves the fixture node, the NVML double and its checkpoints: a few MiB, and the
      // state directories may be on tmpfs (stateDir=/dev/shm).
      for (Path state : stateDirs) {
        FileTrees.delete(state);
      }
      FileTrees.delete(root);
    }
  }

  private static void bench(Map<String, String> args, Path root, List<Path> stateDirs)
      throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"))) {
      Map<String, String> flags = new HashMap<>();
      flags.put("sysfs-root", node.tree().sysfsRoot().toString());
      flags.put("dev-root", node.tree().devRoot().toString());
      flags.put("proc-root", node.tree().procRoot().toString());
      flags.put("nvml-library", nvml.libraryPath().toString());
      flags.put("device-plugin-dir", kubelet.deviceDir().toString());
      flags.put("pod-resources-socket", root.resolve("none.sock").toString());
      // stateDir=/dev/shm/... puts the checkpoints on tmpfs, where fsync costs nothing: run both to
      // tell the disk's share of a latency from the CPU's.
      flags.put(
          "state-dir",
          args.containsKey("stateDir")
              ? Files.createTempDirectory(Path.of(args.get("stateDir")), "acceld-state-").toString()
              : root.resolve("state").toString());
      stateDirs.add(Path.of(flags.get("state-dir")));
      flags.put("metrics-address", "127.0.0.1:0");
      flags.put("mesos-address", "127.0.0.1:0");
      flags.put("mesos-heartbeat", args.getOrDefault("heartbeat", "100ms"));
      flags.put("mesos-reserve", "cpus:0;mem:0;disk:0");
      // its frameworks are root's; tasks are fenced all the same
      flags.put("mesos-allow-root-tasks", "true");
      // isolation=A;B runs every phase once per --mesos-isolation value, each on a fresh agent,
      // so that the cost of containment is read off one run
      for (String isolation : args.getOrDefault("isolation", "devices,memory,cpu").split(";")) {
        flags.put("mesos-isolation", isolation);
        Path state = Path.of(flags.get("state-dir"));
        flags.put("state-dir", state.resolveSibling(state.getFileName() + "-x").toString());
        stateDirs.add(Path.of(flags.get("state-dir")));
        System.out.printf("--mesos-isolation %s%n", isolation);
        run(flags, kubelet, args);
      }
    }
  }

  private static void run(
      Map<String, String> flags, KubeletDouble kubelet, Map<String, String> args) throws Exception {
    try (AgentDaemon daemon =
        AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()))) {
      kubelet.awaitRegistered(GPU, FrameworkDriver.WAIT);
      String hostPort = "127.0.0.1:" + daemon.mesos().orElseThrow().port();
      MesosBridgeHarness harness = new MesosBridgeHarness(hostPort, kubelet, args);
      System.out.printf(
          "cores=%d  heartbeat=%s  state-dir=%s  %s%n",
          Runtime.getRuntime().availableProcessors(),
          flags.get("mesos-heartbeat"),
          flags.get("state-dir"),
          load());
      harness.subscribeToFirstOffer(harness.count("subscribes", 200));
      harness.acceptToRunning(harness.count("accepts", 300));
      harness.sustainedLaunches(Duration.ofSeconds(harness.count("launchSeconds", 60)));
      harness.allocateWithFrameworks(
          harness.count("frameworks", 100), harness.count("allocates", 3000));
    }
  }

  private int count(String name, int otherwise) {
    return Integer.parseInt(args.getOrDefault(name, Integer.toString(otherwise)));
  }

  /** Round after round: a new framework subscribes, its first offer is timed, it is torn down. */
  private void subscribeToFirstOffer(int rounds) throws Exception {
    Latencies latencies = new Latencies();
    for (int i = 0; i < rounds; i++) {
      MediaType codec = i % 2 == 0 ? MediaType.JSON : MediaType.PROTOBUF;
      long start = System.nanoTime();
      try (FrameworkDriver fw =
          FrameworkDriver.subscribe(hostPort, codec, framework("first-offer-" + i, true))) {
        while (fw.pump().event().getType() != Event.Type.OFFERS) {
          // SUBSCRIBED came already; a HEARTBEAT may come before the offer.
        }
        latencies.add(System.nanoTime() - start);
        fw.teardown();
      }
    }
    latencies.report("SUBSCRIBE -> first OFFERS (new framework)");
  }

  /** One framework launches a one-GPU command task into its best offer, times RUNNING, kills it. */
  private void acceptToRunning(int rounds) throws Exception {
    Latencies latencies = new Latencies();
    try (FrameworkDriver fw =
        FrameworkDriver.subscribe(hostPort, MediaType.PROTOBUF, framework("accept", true))) {
      for (int i = 0; i < rounds; i++) {
        Offer offer = fw.takeOffer(1);
        String task = "running-" + (++serial);
        long start = System.nanoTime();
        fw.accept(List.of(offer), List.of(gpuTask(task, offer, "exec sleep 600")));
        FrameworkDriver.Stamped running =
            fw.awaitState(
                task,
                List.of(TaskState.TASK_RUNNING, TaskState.TASK_DROPPED, TaskState.TASK_LOST),
                s -> {});
        TaskStatus status = running.event().getUpdate().getStatus();
        if (status.getState() != TaskState.TASK_RUNNING) {
          throw new IllegalStateException(task + " did not run: " + status);
        }
        latencies.add(running.nanos() - start);
        fw.kill(task);
        fw.awaitState(task, List.of(TaskState.TASK_KILLED), s -> {});
      }
      fw.teardown();
    }
    latencies.report("ACCEPT -> TASK_RUNNING (1 GPU, command task)");
  }

  /**
   * Every offer with a GPU is filled with one-GPU tasks that exit at once; the figure is how many
   * reach TASK_FINISHED per minute, with every update acknowledged.
   */
  private void sustainedLaunches(Duration length) throws Exception {
    Latencies acceptToFinished = new Latencies();
    Map<String, Long> acceptedAt = new HashMap<>();
    long finished = 0;
    long failed = 0;
    try (FrameworkDriver fw =
        FrameworkDriver.subscribe(hostPort, MediaType.PROTOBUF, framework("launches", true))) {
      long start = System.nanoTime();
      long end = start + length.toNanos();
      while (System.nanoTime() < end) {
        for (Offer offer : fw.outstandingOffers()) {
          int fit = (int) Math.min(scalarOf(offer, "gpus"), scalarOf(offer, "cpus") / 0.1);
          if (fit < 1 || scalarOf(offer, "mem") < 32.0 * fit) {
            // What is left of an offer after a launch: without a decline the framework would sit
            // on the node's CPUs and memory, and GPUs alone are not offered (Mesos's minimum).
            fw.decline(offer);
            continue;
          }
          fw.take(offer);
          List<TaskInfo> tasks = new ArrayList<>();
          for (int t = 0; t < fit; t++) {
            tasks.add(gpuTask("short-" + (++serial), offer, "exit 0"));
          }
          long now = System.nanoTime();
          tasks.forEach(t -> acceptedAt.put(t.getTaskId().getValue(), now));
          fw.accept(List.of(offer), tasks);
        }
        FrameworkDriver.Stamped s = fw.pump();
        if (s.event().getType() == Event.Type.UPDATE) {
          TaskStatus status = s.event().getUpdate().getStatus();
          Long accepted = acceptedAt.get(status.getTaskId().getValue());
          if (status.getState() == TaskState.TASK_FINISHED && accepted != null) {
            finished++;
            acceptToFinished.add(s.nanos() - accepted);
            acceptedAt.remove(status.getTaskId().getValue());
          } else if (isTerminal(status.getState()) && accepted != null) {
            failed++;
            acceptedAt.remove(status.getTaskId().getValue());
            System.out.printf(
                "  task %s ended %s: %s%n",
                status.getTaskId().getValue(), status.getState(), status.getMessage());
          }
        }
      }
      double minutes = (System.nanoTime() - start) / 60e9;
      System.out.printf(
          "sustained launches: %d finished, %d failed in %.1f s = %.0f tasks/min  %s%n",
          finished, failed, minutes * 60, finished / minutes, load());
      fw.teardown();
    }
    acceptToFinished.report("  ACCEPT -> TASK_FINISHED under that load");
  }

  /**
   * The kubelet's Allocate, timed without frameworks, with {@code frameworks} subscribed and
   * heart-beaten, and without again (so drift of the shared machine shows). Allocate asks for the
   * same GPU each time, as a kubelet re-admitting one pod would; the frameworks hold the offers of
   * the other seven, which each Allocate may rescind and re-make.
   */
  private void allocateWithFrameworks(int frameworks, int allocates) throws Exception {
    String gpu =
        kubelet.awaitDevices(GPU, d -> d.size() == 8, FrameworkDriver.WAIT).stream()
            .map(DeviceState::id)
            .sorted()
            .findFirst()
            .orElseThrow();
    timeAllocates(gpu, allocates / 3); // warm-up, not reported
    timeAllocates(gpu, allocates).report("Allocate, no frameworks");

    List<FrameworkDriver> subscribed = new ArrayList<>();
    try {
      for (int i = 0; i < frameworks; i++) {
        MediaType codec = i % 2 == 0 ? MediaType.JSON : MediaType.PROTOBUF;
        subscribed.add(
            FrameworkDriver.subscribe(hostPort, codec, framework("idle-" + i, i % 2 == 0)));
      }
      long[] before = subscribed.stream().mapToLong(FrameworkDriver::heartbeatsReceived).toArray();
      long start = System.nanoTime();
      Latencies with = timeAllocates(gpu, allocates);
      double seconds = (System.nanoTime() - start) / 1e9;
      with.report("Allocate, " + frameworks + " frameworks subscribed");
      Set<Long> perFramework = new HashSet<>();
      long least = Long.MAX_VALUE;
      long total = 0;
      for (int i = 0; i < subscribed.size(); i++) {
        long got = subscribed.get(i).heartbeatsReceived() - before[i];
        perFramework.add(got);
        least = Math.min(least, got);
        total += got;
      }
      System.out.printf(
          "  heartbeats during it: %d in %.1f s over %d frameworks (%.0f/s), fewest to one: %d%n",
          total, seconds, frameworks, total / seconds, least);
      for (FrameworkDriver fw : subscribed) {
        fw.teardown();
      }
    } finally {
      for (FrameworkDriver fw : subscribed) {
        fw.close();
      }
    }
    timeAllocates(gpu, allocates).report("Allocate, no frameworks again");
  }

  private Latencies timeAllocates(String gpu, int calls) {
    Latencies latencies = new Latencies();
    for (int i = 0; i < calls; i++) {
      long start = System.nanoTime();
      kubelet.allocateOne(GPU, List.of(gpu));
      latencies.add(System.nanoTime() - start);
    }
    return latencies;
  }

  private static TaskInfo gpuTask(String id, Offer offer, String command) {
    return commandTask(
        id,
        offer.getAgentId(),
        command,
        List.of(scalar("cpus", 0.1), scalar("mem", 32), scalar("gpus", 1)));
  }

  private static boolean isTerminal(TaskState state) {
    return switch (state) {
      case TASK_STAGING, TASK_STARTING, TASK_RUNNING, TASK_KILLING, TASK_UNREACHABLE -> false;
      default -> true;
    };
  }

  /** The load average, so each figure says how busy the shared machine was. */
  static String load() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return "load " + fields[0] + " " + fields[1] + " " + fields[2];
    } catch (java.io.IOException e) {
      return "load unknown";
    }
  }
}
