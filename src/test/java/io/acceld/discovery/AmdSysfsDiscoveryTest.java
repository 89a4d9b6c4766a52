package io.acceld.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.AmdDetails;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.FixtureVariants;
import io.acceld.simulate.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What discovery reads of AMD GPUs and of the machine for node labels, from sysfs alone. */
class AmdSysfsDiscoveryTest {
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
  void eachMi300xCarriesItsKfdNodeItsPartitionsAndTheDriversVersion() {
    Inventory inventory = scan(FixtureVariants.mi300xNode(root, 8));

    assertThat(inventory.devicesOf("amd.com/gpu")).hasSize(8);
    for (Device d : inventory.devicesOf("amd.com/gpu")) {
      AmdDetails amd = d.amd().orElseThrow();
      assertThat(amd.productName()).contains(FixtureVariants.MI300X);
      assertThat(amd.vramBytes()).hasValue(FixtureVariants.MI300X_VRAM);
      assertThat(amd.simdCount()).hasValue(FixtureVariants.MI300X_SIMDS);
      assertThat(amd.computeUnits()).hasValue(304);
      assertThat(amd.driverVersion()).contains(FixtureVariants.AMDGPU_VERSION);
      assertThat(amd.driverSrcVersion()).contains(FixtureVariants.AMDGPU_SRCVERSION);
      assertThat(amd.computePartition()).contains("SPX");
      assertThat(amd.memoryPartition()).contains("NPS1");
      assertThat(amd.computePartitioning()).isTrue();
      assertThat(amd.memoryPartitioning()).isTrue();
    }
    assertThat(inventory.node().nvidiaGpus()).isEmpty();
  }

  @Test
  void aGpuWithoutKfdOrPartitionsHasThoseUnknownAndAMalformedKfdFileCostsOnlyItsValues()
      throws Exception {
    FixtureNode node = FixtureVariants.mi300xNode(root, 2);
    // Card 1's KFD node: garbage where the SIMD count should be.
    Path properties = node.tree().sysfsRoot().resolve("class/kfd/kfd/topology/nodes/3/properties");
    Files.writeString(
        properties, Files.readString(properties).replace("simd_count 1216", "simd_count lots"));

    List<Device> gpus = scan(node).devicesOf("amd.com/gpu");
    assertThat(gpus.get(0).amd().orElseThrow().simdCount()).hasValue(1216);
    assertThat(gpus.get(1).amd().orElseThrow().simdCount()).isEmpty();
    assertThat(gpus.get(1).amd().orElseThrow().vramBytes()).hasValue(FixtureVariants.MI300X_VRAM);

    Inventory mi210 = scan(FixtureVariants.mixedNode(root.resolve("mi210")));
    AmdDetails plain = mi210.devicesOf("amd.com/gpu").get(0).amd().orElseThrow();
    assertThat(plain.productName()).contains("AMD Instinct MI210");
    assertThat(plain.vramBytes()).isEmpty();
    assertThat(plain.computeUnits()).isEmpty();
    assertThat(plain.computePartition()).isEmpty();
    assertThat(plain.computePartitioning()).isFalse();
    assertThat(plain.driverVersion()).isEmpty();
  }

  @Test
  void theMachinesModelComesFromDmiAndEveryNvidiaGpuIsKeptWithItsPciClass() {
    Inventory inventory = scan(Fixtures.eightGpuNode(root));

    assertThat(inventory.node().machine()).contains(Fixtures.MACHINE);
    assertThat(inventory.node().nvidiaGpus())
        .hasSize(8)
        .allSatisfy(
            g -> {
              assertThat(g.pciClass()).isEqualTo(0x030200);
              assertThat(g.seenByNvml()).isFalse();
              assertThat(g.model()).as("the driver's procfs names it").contains(Fixtures.H100);
            });
    assertThat(scan(FixtureVariants.gaudiNode(root.resolve("gaudi"))).node().machine())
        .isEqualTo(Optional.empty());
  }
}
