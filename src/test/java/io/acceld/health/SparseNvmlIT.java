package io.acceld.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.agent.NodeDiscovery;
import io.acceld.config.ConfigLoader;
import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlNodeInfo;
import io.acceld.nvml.NvmlProbe;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.simulate.HotPlug;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An NVML that lacks functions every real driver has (another vendor's partial build, a stripped
 * container library): the agent loses those features and keeps serving.
 */
class SparseNvmlIT {
  @TempDir Path root;

  @Test
  void discoveryKeepsUuidsAndDropsOnlyWhatIsMissing() {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble sparse = NvmlDouble.createSparse(root.resolve("nvml"), node.nvmlScenario());

    try (Nvml nvml = sparse.open()) {
      NvmlNodeInfo info = new NvmlProbe(nvml).probe();
      assertThat(info.gpus()).hasSize(8);
      assertThat(info.gpus()).allSatisfy(g -> assertThat(g.uuid()).startsWith("GPU-"));
      assertThat(info.gpus()).allSatisfy(g -> assertThat(g.cpuAffinity()).isEmpty());
    }
    try (NodeDiscovery discovery =
        NodeDiscovery.open(
            ConfigLoader.load(
                Map.of(
                    "sysfs-root", node.tree().sysfsRoot().toString(),
                    "dev-root", node.tree().devRoot().toString(),
                    "proc-root", node.tree().procRoot().toString(),
                    "nvml-library", sparse.libraryPath().toString()),
                Map.of(),
                Optional.empty()))) {
      Inventory inventory = discovery.scan();
      assertThat(inventory.devices())
          .hasSize(8)
          .allSatisfy(d -> assertThat(d.isHealthy()).isTrue());
      assertThat(inventory.device(node.gpus().get(0).uuid())).isPresent();
      // NVML could not say; the sysfs bridge hierarchy still can.
      assertThat(inventory.topology().level(node.gpus().get(0).uuid(), node.gpus().get(1).uuid()))
          .isEqualTo(Fixtures.eightGpuLevel(0, 1));
    }
  }

  @Test
  void theAgentServesAndWatchesPresenceWithoutNvmlEvents() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble sparse = NvmlDouble.createSparse(root.resolve("nvml"), node.nvmlScenario());
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        AgentHarness agent =
            AgentHarness.on(node.tree())
                .flag("nvml-library", sparse.libraryPath().toString())
                .flag("device-plugin-dir", kubelet.deviceDir().toString())
                .flag("health-probe-interval", "200ms")
                .flag("presence-poll-interval", "200ms")
                .start(root.resolve("etc"))) {
      kubelet.awaitDevices("nvidia.com/gpu", l -> l.size() == 8, Duration.ofSeconds(5));

      HotPlug.removeDevNode(node.tree(), "nvidia2");

      kubelet.awaitDevices(
          "nvidia.com/gpu",
          l ->
              l.stream()
                  .filter(d -> !d.healthy())
                  .map(DeviceState::id)
                  .toList()
                  .equals(java.util.List.of(node.gpus().get(2).uuid())),
          Duration.ofSeconds(5));
      assertThat(agent.agent().alive()).isTrue();
    }
  }
}
