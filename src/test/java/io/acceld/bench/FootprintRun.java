package io.acceld.bench;

import io.acceld.testing.FileTrees;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.DeviceUpdate;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.kubelet.Registration;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One start of the agent as an operator runs it, measured from outside: a fresh kubelet double on a
 * temporary kubelet directory, the agent's command line exec'd as a child process with {@code run
 * --simulate} and its kubelet directories pointed at the double, then the times the double saw, and
 * the kernel's view of the settled process. The agent is stopped with SIGTERM at the end.
 */
final class FootprintRun {
  /** What one run measured; an idle figure is NaN (and its threads empty) where not measured. */
  record Result(
      double registeredMs,
      double healthyMs,
      int listAndWatchBytes,
      double rssMib,
      long threads,
      Idle idle,
      Idle steadyIdle) {}

  /** CPU over one idle window, in % of a core, and by thread as {@link ProcFacts#busiest} says. */
  record Idle(double cpuPercent, String busiestThreads) {
    static final Idle NOT_MEASURED = new Idle(Double.NaN, "");
  }

  /** The agent ended before it registered; {@code log} is the tail of what it wrote. */
  static final class AgentExited extends Exception {
    final int exitCode;
    final String log;

    AgentExited(int exitCode, String log) {
      super("the agent exited " + exitCode + " before it registered:\n" + log);
      this.exitCode = exitCode;
      this.log = log;
    }
  }

  /** How long to wait for each step; a slow loaded machine still starts well inside it. */
  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(90);

  private static final Duration POLL = Duration.ofMillis(250);

  private final List<String> command;
  private final FootprintMode mode;
  private final FootprintSettings settings;
  private final ProcFacts proc;

  FootprintRun(
      List<String> command, FootprintMode mode, FootprintSettings settings, ProcFacts proc) {
    this.command = command;
    this.mode = mode;
    this.settings = settings;
    this.proc = proc;
  }

  Result run() throws Exception {
    Path root = Files.createTempDirectory("acceld-fp-");
    Path log = root.resolve("agent.log");
    List<AutoCloseable> resources = new ArrayList<>();
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"))) {
      int port = freePort();
      List<String> argv = new ArrayList<>(command);
      argv.addAll(
          List.of(
              "run",
              "--simulate",
              "--device-plugin-dir",
              kubelet.deviceDir().toString(),
              "--plugins-registry-dir",
              root.resolve("kubelet/plugins_registry").toString(),
              "--pod-resources-socket",
              root.resolve("kubelet/pod-resources/kubelet.sock").toString(),
              // Loopback and a free port, so runs never meet another agent on 9445.
              "--metrics-address",
              "127.0.0.1:" + port));
      argv.addAll(mode.flags(root, resources));
      ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
      builder.redirectOutput(log.toFile());
      Instant exec = Instant.now();
      Process agent = builder.start();
      try {
        return measure(kubelet, agent, exec, port, log);
      } finally {
        stop(agent);
      }
    } finally {
      for (AutoCloseable r : resources) {
        r.close();
      }
      FileTrees.delete(root);
    }
  }

  private Result measure(KubeletDouble kubelet, Process agent, Instant exec, int port, Path log)
      throws Exception {
    Registration registered =
        awaitWhileAlive(
            kubelet, agent, log, "registration", () -> kubelet.registration(mode.resource()));
    DeviceUpdate healthy =
        awaitWhileAlive(
            kubelet,
            agent,
            log,
            mode.ids() + " healthy IDs",
            () ->
                kubelet.updates(mode.resource()).stream()
                    .filter(
                        u ->
                            u.devices().size() == mode.ids()
                                && u.devices().stream().allMatch(DeviceState::healthy))
                    .findFirst());
    long pid =
        ProcFacts.javaProcess(agent.pid())
            .orElseThrow(() -> new IllegalStateException("no java process under " + agent.pid()));

    // The settle and the CPU window are spans of time to let pass, not conditions to await.
    Thread.sleep(settings.settle().toMillis());
    scrape(port, settings.scrapes());
    Thread.sleep(2_000);
    double rssMib = proc.rssBytes(pid) / 1048576.0;
    long threads = proc.threads(pid);
    Idle idle = Idle.NOT_MEASURED;
    Idle steady = Idle.NOT_MEASURED;
    if (mode.idleCpu()) {
      idle = idleWindow(pid);
      if (!settings.steadyAfter().isZero()) {
        Instant from = registered.registeredAt().plus(settings.steadyAfter());
        long wait = Duration.between(Instant.now(), from).toMillis();
        if (wait > 0) {
          Thread.sleep(wait); // a span of time to let pass, like the settle
        }
        steady = idleWindow(pid);
      }
    }
    if (!agent.isAlive()) {
      throw new AgentExited(agent.exitValue(), tail(log));
    }
    return new Result(
        millisBetween(exec, registered.registeredAt()),
        millisBetween(exec, healthy.at()),
        healthy.serializedSize(),
        rssMib,
        threads,
        idle,
        steady);
  }

  /** CPU the agent used over one window of {@code cpuWindow}, in all and by thread. */
  private Idle idleWindow(long pid) throws InterruptedException {
    long start = System.nanoTime();
    double before = proc.cpuSeconds(pid);
    Map<Long, ProcFacts.ThreadCpu> threadsBefore = proc.cpuByThread(pid);
    Thread.sleep(settings.cpuWindow().toMillis());
    double used = proc.cpuSeconds(pid) - before;
    double percent = 100 * used / ((System.nanoTime() - start) / 1e9);
    return new Idle(percent, ProcFacts.busiest(threadsBefore, proc.cpuByThread(pid)));
  }

  /**
   * The double's own await, in short slices so a child that died (a refused flag, a crash) ends the
   * wait at once instead of at the deadline. The slices do not limit precision: the times reported
   * are the double's timestamps of the events, not when this wait noticed them.
   */
  private static <T> T awaitWhileAlive(
      KubeletDouble kubelet, Process agent, Path log, String what, Supplier<Optional<T>> probe)
      throws Exception {
    long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
    while (true) {
      Optional<T> now = probe.get();
      if (now.isPresent()) {
        return now.get();
      }
      if (!agent.isAlive()) {
        throw new AgentExited(agent.waitFor(), tail(log));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "no "
                + what
                + " within "
                + STEP_TIMEOUT
                + "\n"
                + kubelet.describe()
                + "\n"
                + tail(log));
      }
      try {
        return kubelet.await(what, probe, POLL);
      } catch (AssertionError timeout) {
        // a slice ended: check the child and go on
      }
    }
  }

  private static void scrape(int port, int times) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
            .timeout(Duration.ofSeconds(10))
            .build();
    for (int i = 0; i < times; i++) {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("/metrics answered " + response.statusCode());
      }
    }
  }

  /** SIGTERM, as the kubelet or systemd stops it; SIGKILL if it has not ended in 20 s. */
  private static void stop(Process agent) throws InterruptedException {
    agent.descendants().forEach(ProcessHandle::destroy);
    agent.destroy();
    if (!agent.waitFor(20, TimeUnit.SECONDS)) {
      agent.descendants().forEach(ProcessHandle::destroyForcibly);
      agent.destroyForcibly().waitFor();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static double millisBetween(Instant from, Instant to) {
    return Duration.between(from, to).toNanos() / 1e6;
  }

  static String tail(Path log) {
    try {
      List<String> lines =
          List.of(new String(Files.readAllBytes(log), StandardCharsets.UTF_8).split("\n"));
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
