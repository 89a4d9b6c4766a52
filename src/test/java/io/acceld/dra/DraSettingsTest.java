package io.acceld.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DraSettingsTest {
  static DraSettings settings(String driver, String node, Path plugins) {
    return new DraSettings(
        driver,
        node,
        Path.of("/var/lib/kubelet/plugins_registry"),
        plugins,
        Path.of("/var/run/cdi"),
        Path.of("/dev"),
        Duration.ofSeconds(10));
  }

  @Test
  void socketsAndCdiNamesFollowTheDriver() {
    DraSettings s = settings("gpu.acceld.io", "node-a", Path.of("/var/lib/kubelet/plugins"));
    assertThat(s.registrationSocket())
        .isEqualTo(Path.of("/var/lib/kubelet/plugins_registry/gpu.acceld.io-reg.sock"));
    assertThat(s.draSocket()).isEqualTo(Path.of("/var/lib/kubelet/plugins/gpu.acceld.io/dra.sock"));
    assertThat(s.cdiVendor()).isEqualTo("k8s.gpu.acceld.io");
    assertThat(s.pool()).isEqualTo("node-a");
  }

  @Test
  void aDriverThatIsNotADnsSubdomainIsRefusedNamingIt() {
    for (String bad : new String[] {"", "GPU.acceld.io", "gpu_acceld", "-gpu", "a".repeat(64)}) {
      assertThatThrownBy(() -> settings(bad, "n", Path.of("/p")))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--dra-driver");
    }
    assertThatThrownBy(() -> settings("gpu.acceld.io", "", Path.of("/p")))
        .hasMessageContaining("node name");
  }

  @Test
  void aSocketPathTooLongToBindFailsBeforeServing() {
    DraSettings s = settings("gpu.acceld.io", "n", Path.of("/" + "p".repeat(120)));
    assertThatThrownBy(s::checkSocketPaths)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("dra.sock");
  }
}
