package io.acceld.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.FixtureVariants;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysfsPciScannerTest {
  @TempDir Path root;

  @Test
  void readsEveryAttributeOfAnAmdGpu() {
    FixtureNode node = FixtureVariants.mixedNode(root);
    PciDevice mi210 =
        new SysfsPciScanner(node.tree().sysfsRoot()).scan("0000:c1:00.0").orElseThrow();

    assertThat(mi210.vendor()).isEqualTo(0x1002);
    assertThat(mi210.device()).isEqualTo(0x740f);
    assertThat(mi210.classCode()).isEqualTo(0x038000);
    assertThat(mi210.classAndSubclass()).isEqualTo(0x0380);
    assertThat(mi210.subsystemVendor()).isEqualTo(0x1002);
    assertThat(mi210.subsystemDevice()).isEqualTo(0x0c34);
    assertThat(mi210.numaNode()).isEqualTo(1);
    assertThat(mi210.localCpuList()).isEqualTo("32-63");
    assertThat(mi210.driver()).contains("amdgpu");
    assertThat(mi210.iommuGroup()).isEqualTo(OptionalInt.of(42));
    assertThat(mi210.linkSpeedGts()).contains(16.0);
    assertThat(mi210.linkWidth()).isEqualTo(OptionalInt.of(16));
    assertThat(mi210.drmNodes()).containsExactly("card2", "renderD129");
    assertThat(mi210.productName()).contains("AMD Instinct MI210");
    assertThat(mi210.fabricPath()).containsExactly("pci0000:c0", "0000:c0:01.1", "0000:c1:00.0");
  }

  @Test
  void listsEveryFunctionIncludingBridgesAndNicsInAddressOrder() {
    FixtureNode node = FixtureVariants.mixedNode(root);
    List<PciDevice> all = new SysfsPciScanner(node.tree().sysfsRoot()).scan();

    assertThat(all).extracting(PciDevice::address).isSorted();
    assertThat(all)
        .extracting(PciDevice::address)
        .contains("0000:03:00.0", "0000:21:00.0", "0000:41:00.0", "0000:c1:00.0", "0000:40:01.1");
  }

  @Test
  void aDeviceWithUnreadableAttributesIsSkippedAndTheOthersStillRead() throws Exception {
    FixtureNode node = FixtureVariants.mixedNode(root);
    Path sysfs = node.tree().sysfsRoot();
    Path broken = sysfs.resolve("bus/pci/devices/0000:41:00.0").toRealPath();
    Files.writeString(broken.resolve("vendor"), "garbage\n");

    List<PciDevice> all = new SysfsPciScanner(sysfs).scan();

    assertThat(all).extracting(PciDevice::address).doesNotContain("0000:41:00.0");
    assertThat(all).extracting(PciDevice::address).contains("0000:c1:00.0");
  }

  @Test
  void missingOptionalAttributesAreUnknownNotErrors() throws Exception {
    FixtureNode node = FixtureVariants.mixedNode(root);
    Path sysfs = node.tree().sysfsRoot();
    Path dir = sysfs.resolve("bus/pci/devices/0000:41:00.0").toRealPath();
    Files.delete(dir.resolve("numa_node"));
    Files.delete(dir.resolve("current_link_speed"));
    Files.delete(dir.resolve("driver"));

    PciDevice d = new SysfsPciScanner(sysfs).scan("0000:41:00.0").orElseThrow();

    assertThat(d.numaNode()).isEqualTo(-1);
    assertThat(d.linkSpeedGts()).isEmpty();
    assertThat(d.driver()).isEmpty();
  }

  @Test
  void aMissingSysfsGivesNoDevicesRatherThanAnError() {
    assertThat(new SysfsPciScanner(root.resolve("nowhere")).scan()).isEmpty();
  }

  @Test
  void parsesOldAndNewLinkSpeedFormats() {
    assertThat(SysfsPciScanner.parseLinkSpeed("16.0 GT/s PCIe")).isEqualTo(Optional.of(16.0));
    assertThat(SysfsPciScanner.parseLinkSpeed("8 GT/s")).isEqualTo(Optional.of(8.0));
    assertThat(SysfsPciScanner.parseLinkSpeed("Unknown")).isEmpty();
  }
}
