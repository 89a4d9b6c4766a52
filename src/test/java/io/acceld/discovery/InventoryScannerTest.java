package io.acceld.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.HealthProblem;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.PcieLevel;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.FixtureVariants;
import io.acceld.simulate.Fixtures;
import io.acceld.simulate.HotPlug;
import io.acceld.simulate.SimulatedGpu;
import io.acceld.testing.FileTrees;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Discovery without NVML, on the fixture nodes: what an operator sees with --nvml-library none. */
class InventoryScannerTest {
  @TempDir Path root;

  private static Inventory scan(FixtureNode node) {
    return new InventoryScanner(
            node.tree().sysfsRoot(),
            node.tree().devRoot(),
            node.tree().procRoot(),
            new DeviceClassifier(List.of()),
            NvidiaSource.NONE)
        .scan();
  }

  @Test
  void eightGpuNodeWithoutNvmlListsEveryGpuByPciAddressAndNothingElse() {
    FixtureNode node = Fixtures.eightGpuNode(root);
    Inventory inventory = scan(node);

    assertThat(inventory.resources()).containsExactly("nvidia.com/gpu");
    assertThat(inventory.devices())
        .extracting(Device::id)
        .containsExactlyElementsOf(
            node.gpus().stream().map(SimulatedGpu::pciAddress).sorted().toList());
    for (SimulatedGpu gpu : node.gpus()) {
      Device d = inventory.device(gpu.pciAddress()).orElseThrow();
      assertThat(d.numaNode()).isEqualTo(gpu.numaNode());
      assertThat(d.health()).isEqualTo(Health.HEALTHY);
      assertThat(d.model()).isEqualTo(Fixtures.H100);
      assertThat(d.nvidia()).isEmpty();
      assertThat(d.deviceNodes())
          .containsExactly(
              "nvidia" + gpu.minor(),
              "nvidiactl",
              "nvidia-uvm",
              "nvidia-uvm-tools",
              "nvidia-modeset");
    }
  }

  @Test
  void withoutProcfsTheMinorNumbersFollowPciOrder() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root);
    FileTrees.delete(node.tree().procRoot().resolve("driver"));

    Inventory inventory = scan(node);

    List<String> addresses = node.gpus().stream().map(SimulatedGpu::pciAddress).sorted().toList();
    for (int i = 0; i < addresses.size(); i++) {
      assertThat(inventory.device(addresses.get(i)).orElseThrow().deviceNodes())
          .startsWith("nvidia" + i);
    }
  }

  @Test
  void topologyFromSysfsFollowsSwitchesAndNumaNodes() {
    FixtureNode node = Fixtures.eightGpuNode(root);
    Inventory inventory = scan(node);
    List<SimulatedGpu> gpus = node.gpus();

    for (int i = 0; i < gpus.size(); i++) {
      for (int j = i + 1; j < gpus.size(); j++) {
        assertThat(inventory.topology().level(gpus.get(i).pciAddress(), gpus.get(j).pciAddress()))
            .as("level %d-%d", i, j)
            .isEqualTo(Fixtures.eightGpuLevel(i, j));
        assertThat(inventory.topology().nvlinks(gpus.get(i).pciAddress(), gpus.get(j).pciAddress()))
            .isZero();
      }
    }
  }

  @Test
  void mixedNodeAdvertisesOnlyTheAmdGpusWithKfdAndTheirOwnDrmNodes() {
    Inventory inventory = scan(FixtureVariants.mixedNode(root));

    assertThat(inventory.devices())
        .extracting(Device::id)
        .containsExactly("0000:41:00.0", "0000:c1:00.0");
    Device first = inventory.device("0000:41:00.0").orElseThrow();
    assertThat(first.resource()).isEqualTo("amd.com/gpu");
    assertThat(first.model()).isEqualTo("AMD Instinct MI210");
    assertThat(first.numaNode()).isZero();
    assertThat(first.deviceNodes()).containsExactly("kfd", "dri/card1", "dri/renderD128");
    assertThat(inventory.device("0000:c1:00.0").orElseThrow().deviceNodes())
        .containsExactly("kfd", "dri/card2", "dri/renderD129");
    assertThat(inventory.topology().level("0000:41:00.0", "0000:c1:00.0"))
        .isEqualTo(PcieLevel.SYSTEM);
  }

  @Test
  void aMissingDeviceNodeMakesOnlyThatDeviceUnhealthyAndSaysWhich() {
    FixtureNode node = FixtureVariants.mixedNode(root);
    HotPlug.removeDevNode(node.tree(), "dri/renderD129");

    Inventory inventory = scan(node);

    Device broken = inventory.device("0000:c1:00.0").orElseThrow();
    assertThat(broken.health()).isEqualTo(Health.UNHEALTHY);
    assertThat(broken.healthReason().orElseThrow()).contains("dri/renderD129").contains("missing");
    assertThat(broken.problems())
        .extracting(HealthProblem::kind)
        .containsExactly(HealthProblem.Kind.DEVICE_NODE_MISSING);
    assertThat(broken.deviceNodes()).containsExactly("kfd", "dri/card2");
    assertThat(inventory.device("0000:41:00.0").orElseThrow().isHealthy()).isTrue();
  }

  @Test
  void gaudiNodeAdvertisesEachGaudiWithItsAccelAndControlNodes() {
    Inventory inventory = scan(FixtureVariants.gaudiNode(root));

    assertThat(inventory.resources()).containsExactly("habana.ai/gaudi");
    assertThat(inventory.devices())
        .extracting(Device::id)
        .containsExactly("0000:17:00.0", "0000:97:00.0");
    Device first = inventory.device("0000:17:00.0").orElseThrow();
    assertThat(first.isHealthy()).isTrue();
    assertThat(first.numaNode()).isZero();
    assertThat(first.driver()).contains("habanalabs");
    assertThat(first.deviceNodes()).containsExactly("accel/accel0", "accel/accel_controlD0");
    assertThat(inventory.device("0000:97:00.0").orElseThrow().deviceNodes())
        .containsExactly("accel/accel1", "accel/accel_controlD1");
  }

  @Test
  void aGaudiWithoutItsAccelNodeIsUnhealthyAndSaysWhich() {
    FixtureNode node = FixtureVariants.gaudiNode(root);
    HotPlug.removeDevNode(node.tree(), "accel/accel1");

    Inventory inventory = scan(node);

    Device broken = inventory.device("0000:97:00.0").orElseThrow();
    assertThat(broken.health()).isEqualTo(Health.UNHEALTHY);
    assertThat(broken.healthReason().orElseThrow()).contains("accel/accel1").contains("missing");
    assertThat(broken.deviceNodes()).containsExactly("accel/accel_controlD1");
    assertThat(inventory.device("0000:17:00.0").orElseThrow().isHealthy()).isTrue();
  }

  @Test
  void anUnpluggedGpuDisappearsFromTheNextScan() {
    FixtureNode node = Fixtures.eightGpuNode(root);
    String gone = node.gpus().get(3).pciAddress();
    HotPlug.unplug(node.tree(), gone);

    Inventory inventory = scan(node);

    assertThat(inventory.devices()).hasSize(7);
    assertThat(inventory.device(gone)).isEmpty();
  }

  @Test
  void scanningTheSameHardwareTwiceGivesEqualSnapshots() {
    FixtureNode node = Fixtures.eightGpuNode(root);
    assertThat(scan(node)).isEqualTo(scan(node));
  }
}
