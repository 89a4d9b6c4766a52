package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.LogCapture;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node whose kubelet has not made its directories yet: the agent waits, creating nothing. */
class KubeletDirectoriesIT {
  @TempDir Path root;

  @Test
  void runWaitsForTheDevicePluginDirectoryWithOneLineAndServesOnceItExists() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    Path deviceDir = root.resolve("kubelet/device-plugins");
    try (LogCapture log = LogCapture.of(KubeletPublisher.class);
        AgentHarness agent =
            AgentHarness.on(node.tree())
                .flag("device-plugin-dir", deviceDir.toString())
                .start(root.resolve("etc"))) {

      assertThat(deviceDir).doesNotExist();
      assertThat(root.resolve("kubelet")).doesNotExist();
      assertThat(agent.kubelet().alive()).isTrue();
      assertThat(agent.kubelet().ready()).isFalse();
      assertThat(log.infos())
          .filteredOn(l -> l.startsWith("Waiting for the kubelet"))
          .singleElement()
          .satisfies(l -> assertThat(l).contains(deviceDir.toString(), "--device-plugin-dir"));

      try (KubeletDouble kubelet = KubeletDouble.start(deviceDir)) {
        kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(5));
        kubelet.awaitCondition("ready", () -> agent.kubelet().ready(), Duration.ofSeconds(5));
      }
      assertThat(log.infos()).filteredOn(l -> l.startsWith("Waiting for the kubelet")).hasSize(1);
    }
  }
}
