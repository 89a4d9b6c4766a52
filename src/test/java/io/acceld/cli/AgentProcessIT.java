package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.KubeletDouble;
import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped jar run as a process, as the README and an operator run it. */
class AgentProcessIT {
  @TempDir Path dir;

  static Path jar() {
    return Path.of(System.getProperty("acceld.jar", "target/acceld.jar"));
  }

  Process launch(String... args) throws Exception {
    return launch(Map.of(), args);
  }

  Process launch(Map<String, String> env, String... args) throws Exception {
    return launch(env, List.of(), args);
  }

  Process launch(Map<String, String> env, List<String> jvmFlags, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(javaBin()));
    command.addAll(jvmFlags);
    command.addAll(List.of("-jar", jar().toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectOutput(dir.resolve("out.txt").toFile())
            .redirectError(dir.resolve("err.txt").toFile());
    builder.environment().putAll(env);
    return builder.start();
  }

  /**
   * {@code acceld run --simulate} serving {@code kubelet}, metrics on a free port, plus {@code
   * more}.
   */
  Process runSimulated(KubeletDouble kubelet, String... more) throws Exception {
    return runSimulated(Map.of(), kubelet, more);
  }

  Process runSimulated(Map<String, String> env, KubeletDouble kubelet, String... more)
      throws Exception {
    return runSimulated(env, List.of(), kubelet, more);
  }

  Process runSimulated(
      Map<String, String> env, List<String> jvmFlags, KubeletDouble kubelet, String... more)
      throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--simulate",
                "--device-plugin-dir",
                kubelet.deviceDir().toString(),
                "--metrics-address",
                "127.0.0.1:0"));
    args.addAll(List.of(more));
    return launch(env, jvmFlags, args.toArray(String[]::new));
  }

  static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  String out() throws Exception {
    return Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8);
  }

  String err() throws Exception {
    return Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
  }

  @Test
  void theReadmeCommandListsTheSimulatedNodeThroughNvml() throws Exception {
    Process p = launch("devices", "--simulate", "--json");
    assertThat(Waits.exited(p, Duration.ofSeconds(60))).isTrue();

    assertThat(p.exitValue()).as(err()).isZero();
    JsonNode devices = new ObjectMapper().readTree(out());
    assertThat(devices).hasSize(8);
    devices.forEach(
        d -> {
          assertThat(d.get("id").asText()).startsWith("GPU-");
          assertThat(d.get("uuid").asText()).isEqualTo(d.get("id").asText());
          assertThat(d.get("driverVersion").asText()).isEqualTo("550.54.15");
          assertThat(d.get("memoryBytes").asLong()).isPositive();
        });
  }

  @Test
  void simulateGpusSixtyFourListsSixtyFourGpusThroughNvml() throws Exception {
    Process p = launch("devices", "--simulate", "--simulate-gpus", "64", "--json");
    assertThat(Waits.exited(p, Duration.ofSeconds(60))).isTrue();

    assertThat(p.exitValue()).as(err()).isZero();
    JsonNode devices = new ObjectMapper().readTree(out());
    assertThat(devices).hasSize(64);
    List<String> uuids = new ArrayList<>();
    devices.forEach(d -> uuids.add(d.get("uuid").asText()));
    assertThat(uuids).doesNotHaveDuplicates().allMatch(u -> u.startsWith("GPU-"));
  }

  @Test
  void aBrokenConfigFileExitsTwo() throws Exception {
    Path config = dir.resolve("acceld.yaml");
    Files.writeString(config, "dev-root: /dev\nsysfs-root: [\n");
    Process p = launch("devices", "--config", config.toString());
    assertThat(Waits.exited(p, Duration.ofSeconds(60))).isTrue();

    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(err()).contains(config.toString()).contains("line");
  }

  @Test
  void sigtermStopsTheServersRemovesTheSocketsAndExitsZeroWithinFiveSeconds() throws Exception {
    try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
      Process p = runSimulated(kubelet);
      kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(30));
      Path socket = kubelet.deviceDir().resolve("acceld-nvidia.com_gpu.sock");
      assertThat(socket).exists();

      long start = System.nanoTime();
      p.destroy(); // SIGTERM
      assertThat(Waits.exited(p, Duration.ofSeconds(5))).as("stopped within 5 s").isTrue();

      assertThat(p.exitValue()).as(err()).isZero();
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isLessThan(Waits.scaled(Duration.ofSeconds(5)));
      assertThat(socket).doesNotExist();
      assertThat(new File(socket + ".lock")).doesNotExist();
      kubelet.awaitStreamEnded("nvidia.com/gpu", Duration.ofSeconds(5));
    }
  }

  /** {@code run} on an empty node under {@link #dir}: no kubelet, no NVML, no devices. */
  List<String> runOnEmptyNode(String... more) throws Exception {
    Path node = dir.resolve("node");
    for (String sub : List.of("sys/bus/pci/devices", "dev", "proc")) {
      Files.createDirectories(node.resolve(sub));
    }
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--sysfs-root",
                node.resolve("sys").toString(),
                "--dev-root",
                node.resolve("dev").toString(),
                "--proc-root",
                node.resolve("proc").toString(),
                "--nvml-library",
                "none",
                "--state-dir",
                dir.resolve("state").toString(),
                "--device-plugin-dir",
                dir.resolve("device-plugins").toString()));
    if (!List.of(more).contains("--metrics-address")) {
      args.addAll(List.of("--metrics-address", "127.0.0.1:0"));
    }
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void failOnInitErrorExitsThreeWithOneLineNamingTheUnmetExpectation() throws Exception {
    Process p =
        launch(
            runOnEmptyNode("--expect-devices", "nvidia.com/gpu>=1", "--fail-on-init-error")
                .toArray(String[]::new));
    assertThat(Waits.exited(p, Duration.ofSeconds(60))).isTrue();

    assertThat(p.exitValue()).as(err()).isEqualTo(3);
    List<String> lines = err().lines().toList();
    assertThat(lines.get(lines.size() - 1))
        .isEqualTo(
            "acceld: --expect-devices nvidia.com/gpu>=1 but 0 devices of nvidia.com/gpu were found;"
                + " exiting because --fail-on-init-error is set (false keeps serving, unready)");
    assertThat(err()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Test
  void aMetricsPortInUseExitsFourWithOneLineNamingTheSettingAndNoStackTrace() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String address = "127.0.0.1:" + taken.getLocalPort();
      List<String> args = runOnEmptyNode("--metrics-address", address);
      Process p = launch(args.toArray(String[]::new));
      assertThat(Waits.exited(p, Duration.ofSeconds(60))).isTrue();

      assertThat(p.exitValue()).as(err()).isEqualTo(4);
      List<String> lines = err().lines().toList();
      assertThat(lines.get(lines.size() - 1))
          .startsWith("acceld: --metrics-address " + address + ": address already in use")
          .endsWith("choose another HOST:PORT with --metrics-address");
      assertThat(err()).doesNotContain("\tat ").doesNotContain("BindException");
    }
  }

  @Test
  void anOperatorsLogbackFileReplacesTheAgentsOwnLogSetUpForEveryLine() throws Exception {
    Path xml = dir.resolve("logback.xml");
    Files.writeString(
        xml,
        """
        <configuration>
          <appender name="ERR" class="ch.qos.logback.core.ConsoleAppender">
            <target>System.err</target>
            <encoder><pattern>OPERATOR %level %logger{0}: %msg%n</pattern></encoder>
          </appender>
          <root level="INFO"><appender-ref ref="ERR"/></root>
        </configuration>
        """);
    try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
      Process p = runSimulated(Map.of(), List.of("-Dlogback.configurationFile=" + xml), kubelet);
      kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(30));
      p.destroy();
      assertThat(Waits.exited(p, Duration.ofSeconds(10))).isTrue();
    }

    assertThat(err().lines().toList())
        .isNotEmpty()
        .allSatisfy(l -> assertThat(l).startsWith("OPERATOR "))
        .anySatisfy(l -> assertThat(l).matches("OPERATOR INFO \\w+: Serving /metrics.*"));
  }

  @Test
  void jsonLogsAreOneObjectALineWithoutGrpcCensusNoiseAtDebug() throws Exception {
    try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
      Process p = runSimulated(kubelet, "--log-level", "debug", "--log-format", "json");
      kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(30));
      p.destroy();
      assertThat(Waits.exited(p, Duration.ofSeconds(10))).isTrue();
    }

    ObjectMapper mapper = new ObjectMapper();
    List<JsonNode> events = new ArrayList<>();
    for (String line : err().lines().toList()) {
      JsonNode event = mapper.readTree(line);
      assertThat(event.fieldNames())
          .toIterable()
          .as(line)
          .contains("timestamp", "level", "logger", "thread", "message");
      events.add(event);
    }
    assertThat(events)
        .anySatisfy(e -> assertThat(e.get("device")).isNotNull())
        .noneSatisfy(e -> assertThat(e.toString()).containsIgnoringCase("census"));
    assertThat(events)
        .map(e -> e.get("message").asText())
        .anySatisfy(m -> assertThat(m).matches("Serving /metrics.* on 127\\.0\\.0\\.1:[1-9]\\d*"));
  }

  @Test
  void aMisspeltEnvironmentVariableIsWarnedAboutOnceWithTheClosestSettingAndTheAgentRuns()
      throws Exception {
    Map<String, String> env =
        Map.of("ACCELD_METRICS_ADRESS", "127.0.0.1:1", "ACCELD_WIDGET_COLOUR", "blue");
    try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
      Process p = runSimulated(env, kubelet);
      kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(30));
      assertThat(p.isAlive()).as(err()).isTrue();
      p.destroy();
      assertThat(Waits.exited(p, Duration.ofSeconds(10))).isTrue();
      assertThat(p.exitValue()).as(err()).isZero();
    }

    List<String> warnings = err().lines().filter(l -> l.contains("matches no setting")).toList();
    assertThat(warnings).hasSize(2);
    assertThat(warnings.get(0))
        .contains("WARN")
        .contains(
            "environment variable \"ACCELD_METRICS_ADRESS\" matches no setting and is ignored"
                + " (did you mean 'ACCELD_METRICS_ADDRESS'?)");
    assertThat(warnings.get(1))
        .contains("\"ACCELD_WIDGET_COLOUR\" matches no setting")
        .doesNotContain("did you mean");
  }
}
