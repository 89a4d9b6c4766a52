package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceld.testing.Command;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the image ships, started as the image starts it: the {@code acceld} launcher on the jlinked
 * runtime with the AppCDS archive, made by the same {@code build-runtime.sh} the Dockerfile runs.
 */
class RuntimeImageIT {
  @TempDir Path dir;

  private Process launch(Path prefix, String... args) throws Exception {
    // -Xshare:on turns "the AppCDS archive does not fit this jar" into a failed start.
    return launchWithJvmFlags(prefix, "-Xshare:on", args);
  }

  private Process launchWithJvmFlags(Path prefix, String jvmFlags, String... args)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(prefix.resolve("bin/acceld").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            // Not the checkout: systemd starts it in /, and the archive must not depend on it.
            .directory(dir.toFile())
            .redirectOutput(dir.resolve("out.txt").toFile())
            .redirectError(dir.resolve("err.txt").toFile());
    builder
        .environment()
        .put("ACCELD_NATIVE_PROBES", RuntimeImage.nativeProbes().toAbsolutePath().toString());
    builder.environment().put("ACCELD_JVM_EXTRA_FLAGS", jvmFlags);
    builder.environment().remove("JAVA_HOME");
    builder.environment().remove("ACCELD_JAVA");
    builder.environment().remove("ACCELD_JAR");
    return builder.start();
  }

  private String out() throws Exception {
    return RuntimeImage.read(dir.resolve("out.txt"));
  }

  private String err() throws Exception {
    return RuntimeImage.read(dir.resolve("err.txt"));
  }

  @Test
  void theJlinkedRuntimeRegistersWithTheKubeletAndStopsCleanlyOnSigterm() throws Exception {
    Path prefix = RuntimeImage.prefix();
    try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
      Process agent =
          launch(
              prefix,
              "run",
              "--simulate",
              "--device-plugin-dir",
              kubelet.deviceDir().toString(),
              "--metrics-address",
              "127.0.0.1:0");
      try {
        kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(60));
        // The launcher exec'd the jlinked java: the registered process is that runtime, not the
        // JDK running this test.
        assertThat(Path.of("/proc", Long.toString(agent.pid()), "exe").toRealPath())
            .isEqualTo(prefix.resolve("jre/bin/java").toRealPath());
        assertThat(
                kubelet.awaitDevices("nvidia.com/gpu", d -> d.size() == 8, Duration.ofSeconds(30)))
            .hasSize(8);
        Path socket = kubelet.deviceDir().resolve("acceld-nvidia.com_gpu.sock");
        assertThat(socket).exists();

        agent.destroy(); // SIGTERM, straight to the JVM
        assertThat(Waits.exited(agent, Duration.ofSeconds(10))).as("stopped within 10 s").isTrue();

        assertThat(agent.exitValue()).as(err()).isZero();
        assertThat(socket).doesNotExist();
        kubelet.awaitStreamEnded("nvidia.com/gpu", Duration.ofSeconds(5));
      } finally {
        agent.destroyForcibly();
      }
    }
  }

  @Test
  void theJlinkedRuntimeSeesTheGpusThroughNvmlAndKeepsStdoutClean() throws Exception {
    Path prefix = RuntimeImage.prefix();
    Process devices = launch(prefix, "devices", "--simulate", "--json");
    assertThat(Waits.exited(devices, Duration.ofSeconds(60))).isTrue();

    assertThat(devices.exitValue()).as(err()).isZero();
    assertThat(err()).doesNotContain("class-data archive");
    JsonNode list = new ObjectMapper().readTree(out());
    assertThat(list).hasSize(8);
    list.forEach(d -> assertThat(d.get("driverVersion").asText()).isEqualTo("550.54.15"));
  }

  @Test
  void theRuntimeLeavesOutTheModulesTheAgentDoesNotUse() throws Exception {
    Path prefix = RuntimeImage.prefix();
    List<String> modules =
        Files.readAllLines(prefix.resolve("jre/release")).stream()
            .filter(line -> line.startsWith("MODULES="))
            .toList();
    assertThat(modules).singleElement().asString().doesNotContain("java.desktop", "java.sql");
    assertThat(prefix.resolve("jre/lib/acceld.jsa")).isNotEmptyFile();
  }

  @Test
  void theTreeShipsTheBashCompletionTheRuntimeGeneratedAndItParses() throws Exception {
    Path completion = RuntimeImage.prefix().resolve("share/bash-completion/completions/acceld");

    assertThat(completion).isNotEmptyFile();
    assertThat(Files.readString(completion))
        .contains("complete -F _complete_acceld")
        .contains("--expect-devices");
    assertThat(Command.run(dir, "bash", "-n", completion.toString()).exitCode()).isZero();
  }

  @Test
  void aMovedTreeSaysItCannotUseItsArchiveAndStillRuns() throws Exception {
    Path moved = dir.resolve("elsewhere");
    Command.Result copy =
        Command.run(
            dir, "cp", "-a", RuntimeImage.prefix().toAbsolutePath().toString(), moved.toString());
    assertThat(copy.exitCode()).as(copy.toString()).isZero();

    Process version = launchWithJvmFlags(moved, "", "--version");
    assertThat(Waits.exited(version, Duration.ofSeconds(60))).isTrue();

    assertThat(version.exitValue()).as(err()).isZero();
    assertThat(out()).startsWith("acceld ");
    assertThat(err())
        .contains("not using the class-data archive " + moved.resolve("jre/lib/acceld.jsa"))
        .contains("made for " + RuntimeImage.prefix().toAbsolutePath().resolve("lib/acceld.jar"));
  }
}
