package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which name the Hostname label carries. */
class NodeNameTest {
  @Test
  void theSettingWinsThenTheEnvironmentThenTheHostName() {
    Map<String, String> env = Map.of("NODE_NAME", "k8s-node-7");

    assertThat(NodeName.resolve("configured", env, () -> "host")).isEqualTo("configured");
    assertThat(NodeName.resolve("", env, () -> "host")).isEqualTo("k8s-node-7");
    assertThat(NodeName.resolve("", Map.of(), () -> "host")).isEqualTo("host");
    assertThat(NodeName.resolve("  ", Map.of("NODE_NAME", " "), () -> "host")).isEqualTo("host");
  }

  @Test
  void theEnvironmentIsThePassedOneNotTheProcesses(@TempDir Path proc) throws Exception {
    Files.createDirectories(proc.resolve("sys/kernel"));
    Files.writeString(proc.resolve("sys/kernel/hostname"), "gpu-node-12\n");

    assertThat(NodeName.resolve("", Map.of("NODE_NAME", "k8s-node-7"), proc))
        .isEqualTo("k8s-node-7");
    assertThat(NodeName.resolve("", Map.of(), proc)).isEqualTo("gpu-node-12");
  }

  @Test
  void theHostNameIsNeverEmpty() {
    assertThat(NodeName.hostName(Path.of("/proc"))).isNotBlank();
    assertThat(NodeName.hostName(Path.of("/nonexistent"))).isNotBlank();
  }

  @Test
  void theHostNameIsReadUnderTheProcRoot(@TempDir Path proc) throws Exception {
    Files.createDirectories(proc.resolve("sys/kernel"));
    Files.writeString(proc.resolve("sys/kernel/hostname"), "gpu-node-12\n");

    assertThat(NodeName.hostName(proc)).isEqualTo("gpu-node-12");
  }
}
