package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Waits;
import io.acceld.testing.kube.KubeApiDouble;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped jar run as a process with the JVM's class-loading log: without {@code --dra-driver}
 * no {@code io.acceld.dra} class is loaded and no {@code acceld-dra} thread runs; with it (the
 * control, which shows the check sees DRA when it is there) both are.
 */
class DraOffProcessIT {
  private static final String GPU = "nvidia.com/gpu";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /** What one run of the agent left: the classes it loaded, its threads while serving. */
  private record Run(List<String> draClasses, List<String> draThreads, int agentClasses) {}

  /**
   * Runs the agent until it serves the kubelet double eight GPUs and, when {@code alsoAwait} is
   * given, that file exists (DRA starts after the device plugin), then stops it.
   */
  private Run run(String name, List<String> more, Optional<Path> alsoAwait) throws Exception {
    Path work = Files.createDirectories(dir.resolve(name));
    Path classLog = work.resolve("classes.log");
    List<String> threads;
    try (KubeletDouble kubelet = KubeletDouble.start(work.resolve("kubelet/device-plugins"))) {
      List<String> command =
          new ArrayList<>(
              List.of(
                  AgentProcessIT.javaBin(),
                  "-Xlog:class+load=info:file=" + classLog,
                  "-jar",
                  AgentProcessIT.jar().toString(),
                  "run",
                  "--simulate",
                  "--device-plugin-dir",
                  kubelet.deviceDir().toString(),
                  "--metrics-address",
                  "127.0.0.1:0"));
      command.addAll(more);
      Process p =
          new ProcessBuilder(command)
              .redirectOutput(work.resolve("out.txt").toFile())
              .redirectError(work.resolve("err.txt").toFile())
              .start();
      try {
        kubelet.awaitRegistered(GPU, WAIT);
        kubelet.awaitDevices(GPU, l -> l.size() == 8, WAIT);
        // The metrics server listens after every publisher started (DRA after the device plugin):
        // its log line says the agent's start-up is over, so a DRA that would start is running.
        kubelet.awaitCondition(
            "the agent's start-up is over",
            () -> {
              try {
                return (Files.readString(work.resolve("out.txt"), StandardCharsets.UTF_8)
                        + Files.readString(work.resolve("err.txt"), StandardCharsets.UTF_8))
                    .contains("Serving /metrics");
              } catch (java.io.IOException e) {
                return false;
              }
            },
            WAIT);
        if (alsoAwait.isPresent()) {
          kubelet.awaitCondition(
              alsoAwait.get() + " exists", () -> Files.exists(alsoAwait.get()), WAIT);
        }
        threads = threadsOf(p.pid());
      } finally {
        p.destroy();
        if (!Waits.exited(p, Duration.ofSeconds(10))) {
          p.destroyForcibly();
        }
      }
      assertThat(p.exitValue())
          .as(Files.readString(work.resolve("err.txt"), StandardCharsets.UTF_8))
          .isZero();
    }
    List<String> loaded = Files.readAllLines(classLog, StandardCharsets.UTF_8);
    return new Run(
        loaded.stream().filter(l -> l.contains(" io.acceld.dra.")).toList(),
        threads.stream().filter(t -> t.startsWith("\"acceld-dra")).toList(),
        (int) loaded.stream().filter(l -> l.contains(" io.acceld.agent.AgentDaemon ")).count());
  }

  /** The first line of each thread in {@code jcmd PID Thread.print}. */
  private static List<String> threadsOf(long pid) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p =
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    List<String> threads = out.lines().filter(l -> l.startsWith("\"")).toList();
    assertThat(threads).as("jcmd listed the agent's threads").isNotEmpty();
    return threads;
  }

  @Test
  void withoutDraDriverNoDraClassLoadsAndNoDraThreadRuns() throws Exception {
    Run off = run("off", List.of(), Optional.empty());
    assertThat(off.agentClasses()).as("the class-loading log works").isEqualTo(1);
    assertThat(off.draClasses()).isEmpty();
    assertThat(off.draThreads()).isEmpty();

    // The control: the same check sees DRA when it runs.
    try (KubeApiDouble api = KubeApiDouble.start()) {
      Path kube = Files.createDirectories(dir.resolve("kube"));
      Run on =
          run(
              "on",
              List.of(
                  "--dra-driver",
                  "gpu.acceld.io",
                  "--node-name",
                  "node-a",
                  "--kubeconfig",
                  api.kubeconfig(kube, null).toString(),
                  "--kubelet-plugins-dir",
                  dir.resolve("on/kubelet/plugins").toString(),
                  "--plugins-registry-dir",
                  dir.resolve("on/kubelet/plugins_registry").toString()),
              Optional.of(dir.resolve("on/kubelet/plugins_registry/gpu.acceld.io-reg.sock")));
      assertThat(on.draClasses()).anyMatch(l -> l.contains("io.acceld.dra.DraPublisher"));
      assertThat(on.draThreads()).isNotEmpty();
    }
  }
}
