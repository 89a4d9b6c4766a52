package io.acceld.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.agent.NodeDiscovery;
import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlNodeInfo;
import io.acceld.nvml.NvmlProbe;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.simulate.HotPlug;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
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
    try (NodeDiscovery discovery = NodeDiscovery.open(sparse.discoveryOf(node))) {
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
  void withoutTheEventApiEventsAreReportedUnavailableOnceAndHealthStaysAlive() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble sparse = NvmlDouble.createSparse(root.resolve("nvml"), node.nvmlScenario());
    AtomicInteger changes = new AtomicInteger();
    HealthListener listener = changes::incrementAndGet;
    try (NodeDiscovery discovery = NodeDiscovery.open(sparse.discoveryOf(node));
        LogCapture logs = LogCapture.of(NvmlEventMonitor.class)) {
      Inventory discovered = discovery.scan();
      try (HealthMonitor health =
          new HealthMonitor(
              discovery.nvml(),
              () -> discovered,
              new HealthMarks(Clock.systemUTC(), Optional.empty()),
              listener,
              () -> {},
              Clock.systemUTC(),
              new HealthMonitor.Settings(
                  XidPolicy.of(List.of(), List.of()),
                  Duration.ofMillis(50),
                  node.tree().sysfsRoot(),
                  node.tree().devRoot(),
                  Duration.ofMillis(200)))) {
        health.start();

        Eventually.await(
            "events reported unavailable", () -> health.eventsUnavailable().isPresent());

        assertThat(health.eventsUnavailable().orElseThrow()).contains("nvmlEventSetCreate");
        assertThat(health.alive()).isTrue();
        assertThat(logs.warnings())
            .singleElement()
            .asString()
            .startsWith("NVML cannot deliver events")
            .contains("only probes watch GPU health");
        assertThat(changes.get()).isZero();
      }
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
