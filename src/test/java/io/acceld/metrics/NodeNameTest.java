package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

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
  void theHostNameIsNeverEmpty() {
    assertThat(NodeName.hostName()).isNotBlank();
  }
}
