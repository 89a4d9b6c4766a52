package io.acceld.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.HealthProblem;
import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlProbe;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.simulate.NvmlFaults;
import io.acceld.simulate.NvmlScenario;
import io.acceld.simulate.SimulatedGpu;
import io.acceld.testing.NvmlDouble;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Discovery joined with NVML, through the production binding loading the C double. */
class InventoryScannerNvmlIT {
  @TempDir Path root;
  private Nvml nvml;

  @AfterEach
  void close() {
    if (nvml != null) {
      nvml.close();
    }
  }

  private Inventory scan(FixtureNode node, NvmlScenario scenario) {
    nvml = NvmlDouble.create(root.resolve("nvml"), scenario).open();
    return new InventoryScanner(
            node.tree().sysfsRoot(),
            node.tree().devRoot(),
            node.tree().procRoot(),
            new DeviceClassifier(List.of()),
            NvidiaSource.fresh(new NvmlProbe(nvml)))
        .scan();
  }

  @Test
  void nvidiaGpusAreKnownByUuidWithNvmlDetailsJoinedByPciAddress() {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    Inventory inventory = scan(node, node.nvmlScenario());

    assertThat(inventory.devices()).hasSize(8);
    for (SimulatedGpu gpu : node.gpus()) {
      Device d = inventory.device(gpu.uuid()).orElseThrow();
      assertThat(d.pciAddress()).isEqualTo(gpu.pciAddress());
      assertThat(d.numaNode()).isEqualTo(gpu.numaNode());
      assertThat(d.model()).isEqualTo(Fixtures.H100);
      assertThat(d.nvidia().orElseThrow().memoryBytes()).isEqualTo(Fixtures.H100_MEMORY);
      assertThat(d.nvidia().orElseThrow().minor()).isEqualTo(gpu.minor());
      assertThat(d.deviceNodes()).startsWith("nvidia" + gpu.minor());
    }
    assertThat(inventory.node().nvidiaDriverVersion()).contains(Fixtures.NVIDIA_DRIVER);
    assertThat(inventory.node().cudaVersion()).contains("12.4");
  }

  @Test
  void topologyComesFromNvmlWithNvlinkCounts() {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    Inventory inventory = scan(node, node.nvmlScenario());
    List<SimulatedGpu> gpus = node.gpus();

    for (int i = 0; i < gpus.size(); i++) {
      for (int j = i + 1; j < gpus.size(); j++) {
        String a = gpus.get(i).uuid();
        String b = gpus.get(j).uuid();
        assertThat(inventory.topology().nvlinks(a, b))
            .as("nvlinks %d-%d", i, j)
            .isEqualTo(Fixtures.eightGpuNvlinks(i, j));
        assertThat(inventory.topology().level(a, b))
            .as("level %d-%d", i, j)
            .isEqualTo(Fixtures.eightGpuLevel(i, j));
      }
    }
  }

  @Test
  void aLostGpuIsListedUnhealthyByItsPciAddressAndTheOthersStayHealthy() {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlScenario scenario =
        NvmlScenario.empty().driver(Fixtures.NVIDIA_DRIVER).cuda(Fixtures.CUDA_DRIVER);
    for (NvmlScenario.Gpu g : node.nvmlScenario().gpus()) {
      scenario = scenario.gpu(NvmlFaults.lost(g, g.uuid().equals(node.gpus().get(2).uuid())));
    }

    Inventory inventory = scan(node, scenario);

    assertThat(inventory.devices()).hasSize(8);
    Device lost = inventory.device(node.gpus().get(2).pciAddress()).orElseThrow();
    assertThat(lost.health()).isEqualTo(Health.UNHEALTHY);
    assertThat(lost.healthReason().orElseThrow()).contains("GPU_IS_LOST");
    assertThat(lost.problems()).containsExactly(HealthProblem.gpuLost());
    assertThat(inventory.devices().stream().filter(Device::isHealthy)).hasSize(7);
  }

  @Test
  void aDuplicateUuidCostsOnlyTheTwoGpusThatShareItAndOtherVendorsStay() {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    addAmdGpu(node);
    String shared = node.gpus().get(1).uuid();
    NvmlScenario scenario =
        withGpus(
            node, g -> g.uuid().equals(node.gpus().get(5).uuid()) ? NvmlFaults.uuid(g, shared) : g);

    Inventory inventory = scan(node, scenario);

    assertThat(inventory.devices()).hasSize(9);
    for (int i : new int[] {1, 5}) {
      Device d = inventory.device(node.gpus().get(i).pciAddress()).orElseThrow();
      assertThat(d.health()).isEqualTo(Health.UNHEALTHY);
      assertThat(d.healthReason().orElseThrow()).contains("UUID").contains(shared);
    }
    assertThat(inventory.devices().stream().filter(Device::isHealthy)).hasSize(7);
    assertThat(inventory.device(node.gpus().get(0).uuid())).isPresent();
    assertThat(inventory.devicesOf("amd.com/gpu")).hasSize(1);
  }

  @Test
  void aDuplicatePciBusIdCostsOnlyTheDeviceAtThatAddress() {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    String taken = node.gpus().get(2).pciAddress();
    NvmlScenario scenario =
        withGpus(
            node,
            g -> g.uuid().equals(node.gpus().get(6).uuid()) ? NvmlFaults.pciBusId(g, taken) : g);

    Inventory inventory = scan(node, scenario);

    assertThat(inventory.devices()).hasSize(8);
    Device ambiguous = inventory.device(taken).orElseThrow();
    assertThat(ambiguous.health()).isEqualTo(Health.UNHEALTHY);
    assertThat(ambiguous.healthReason().orElseThrow()).contains("2 GPUs at PCI bus ID " + taken);
    assertThat(inventory.device(node.gpus().get(0).uuid()).orElseThrow().isHealthy()).isTrue();
  }

  private static NvmlScenario withGpus(
      FixtureNode node, java.util.function.UnaryOperator<NvmlScenario.Gpu> change) {
    NvmlScenario scenario =
        NvmlScenario.empty().driver(Fixtures.NVIDIA_DRIVER).cuda(Fixtures.CUDA_DRIVER);
    for (NvmlScenario.Gpu g : node.nvmlScenario().gpus()) {
      scenario = scenario.gpu(change.apply(g));
    }
    return scenario;
  }

  private static void addAmdGpu(FixtureNode node) {
    node.tree()
        .pci("0000:c1:00.0")
        .id(0x1002, 0x740f)
        .pciClass(0x038000)
        .numa(0, "0-3")
        .driver("amdgpu")
        .productName("AMD Instinct MI210")
        .under("pci0000:c0")
        .drm("card1", "renderD128")
        .write();
    node.tree().devNode("dri/card1").devNode("dri/renderD128").devNode("kfd");
  }
}
