package io.acceld.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.FixtureVariants;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
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
  void anAttributeThatBlocksCostsTheDeadlineOnceAndReadsAsUnknown() throws Exception {
    FixtureNode node = FixtureVariants.mixedNode(root);
    Path sysfs = node.tree().sysfsRoot();
    Path numa = sysfs.resolve("bus/pci/devices/0000:c1:00.0").toRealPath().resolve("numa_node");
    Path vendor = sysfs.resolve("bus/pci/devices/0000:41:00.0").toRealPath().resolve("vendor");
    fifo(numa);
    fifo(vendor);
    // Scaled: on a loaded machine reading a device's other attributes may itself take a while
    Duration deadline = Waits.scaled(Duration.ofMillis(300));
    SysfsPciScanner scanner = new SysfsPciScanner(sysfs, deadline);

    try (LogCapture logs = LogCapture.of(SysfsPciScanner.class)) {
      List<PciDevice> all = scanner.scan();

      // a wedged optional attribute: the device stays, NUMA unknown
      PciDevice mi210 =
          all.stream().filter(d -> d.address().equals("0000:c1:00.0")).findFirst().orElseThrow();
      assertThat(mi210.numaNode()).isEqualTo(-1);
      assertThat(mi210.drmNodes()).containsExactly("card2", "renderD129");
      // a wedged required one: that device is reported and left out, the others read
      assertThat(all).extracting(PciDevice::address).doesNotContain("0000:41:00.0");
      assertThat(all).extracting(PciDevice::address).contains("0000:03:00.0", "0000:21:00.0");
      assertThat(logs.warnings())
          .anySatisfy(w -> assertThat(w).contains("0000:41:00.0").contains("blocks"))
          .anySatisfy(w -> assertThat(w).contains(numa.toString()));
    }

    // /healthz names each blocked file and its device until the read returns
    assertThat(scanner.blockedReads())
        .hasSize(2)
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("reading " + numa + " for 0000:c1:00.0 timed out since 20"))
        .anySatisfy(l -> assertThat(l).startsWith("reading " + vendor + " for 0000:41:00.0"));

    // the next scan does not wait on the files still blocked: waiting would cost a deadline
    long start = System.nanoTime();
    assertThat(scanner.scan()).extracting(PciDevice::address).contains("0000:c1:00.0");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(deadline);

    // once the attribute answers, it is read again
    unblock(numa);
    unblock(vendor);
    Files.delete(numa);
    Files.writeString(numa, "1\n");
    Files.delete(vendor);
    Files.writeString(vendor, "0x15b3\n");
    // Each file is read again once the read stuck in it has returned: they return in either order
    Eventually.await(
        "the unwedged attributes are read",
        () -> {
          List<PciDevice> again = scanner.scan();
          return again.stream()
                  .anyMatch(d -> d.address().equals("0000:c1:00.0") && d.numaNode() == 1)
              && again.stream().anyMatch(d -> d.address().equals("0000:41:00.0"));
        });
    assertThat(scanner.blockedReads()).isEmpty();
  }

  @Test
  void aScanForSomeDevicesReadsOnlyTheIdentityOfTheOthers() throws Exception {
    FixtureNode node = FixtureVariants.mixedNode(root);
    Path sysfs = node.tree().sysfsRoot();
    // The NIC's NUMA node would block anyone who read it
    Path nicNuma = sysfs.resolve("bus/pci/devices/0000:21:00.0").toRealPath().resolve("numa_node");
    fifo(nicNuma);
    SysfsPciScanner scanner = new SysfsPciScanner(sysfs, Waits.scaled(Duration.ofMillis(300)));
    try {
      List<PciDevice> amd = scanner.scan(id -> id.vendor() == DeviceClassifier.VENDOR_AMD);

      assertThat(amd)
          .extracting(PciDevice::address)
          .containsExactly("0000:41:00.0", "0000:c1:00.0");
      assertThat(amd.get(1).numaNode()).isEqualTo(1);
      assertThat(amd.get(1).drmNodes()).containsExactly("card2", "renderD129");
      assertThat(scanner.blockedReads()).isEmpty();
    } finally {
      // Opened for reading and writing, a FIFO never blocks the opener; any reader it held gets
      // end-of-file once it is closed again (unblock() would wait for a reader that is not there)
      new java.io.RandomAccessFile(nicNuma.toFile(), "rw").close();
    }
  }

  /**
   * An hour of rescans at the default interval (60 s) is 60 of them; this runs 240, each finding
   * the same file still blocked. At most the one thread stuck in that read remains, and no
   * descriptor piles up.
   */
  @Test
  void rescansThatAllHitTheSameBlockedFileLeaveNoThreadOrDescriptorBehind() throws Exception {
    FixtureNode node = FixtureVariants.mixedNode(root);
    Path sysfs = node.tree().sysfsRoot();
    Path numa = sysfs.resolve("bus/pci/devices/0000:c1:00.0").toRealPath().resolve("numa_node");
    fifo(numa);
    // Scaled, as above: a device read past the deadline on a busy core would be left out
    SysfsPciScanner scanner = new SysfsPciScanner(sysfs, Waits.scaled(Duration.ofMillis(200)));
    try (LogCapture logs = LogCapture.of(SysfsPciScanner.class)) {
      scanner.scan(); // the one read that blocks, and its thread
      long threadsBefore = sysfsReaders();
      long descriptorsBefore = openDescriptors();
      for (int i = 0; i < 240; i++) {
        assertThat(scanner.scan()).extracting(PciDevice::address).contains("0000:c1:00.0");
      }
      assertThat(sysfsReaders()).isLessThanOrEqualTo(Math.max(1, threadsBefore));
      assertThat(openDescriptors()).isLessThanOrEqualTo(descriptorsBefore + 4);
      assertThat(scanner.blockedReads()).singleElement().asString().contains(numa.toString());
      // and the warning is not repeated per rescan
      assertThat(logs.warnings().stream().filter(w -> w.contains(numa.toString())).count())
          .isEqualTo(1);
    } finally {
      unblock(numa);
    }
    Eventually.await("the blocked read returns", () -> scanner.blockedReads().isEmpty());
  }

  private static long sysfsReaders() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("acceld-sysfs-read"))
        .count();
  }

  private static long openDescriptors() throws Exception {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }

  @Test
  void anAliasLinkDoesNotListADeviceTwice() throws Exception {
    FixtureNode node = FixtureVariants.mixedNode(root);
    Path sysfs = node.tree().sysfsRoot();
    Path devices = sysfs.resolve("bus/pci/devices");
    Files.createSymbolicLink(
        devices.resolve("0000:c9:00.0"), devices.resolve("0000:c1:00.0").toRealPath());

    List<PciDevice> all = new SysfsPciScanner(sysfs).scan();

    assertThat(all).extracting(PciDevice::address).containsOnlyOnce("0000:c1:00.0");
    assertThat(all).extracting(PciDevice::address).doesNotContain("0000:c9:00.0");
  }

  @Test
  void aNegativeNumaNodeOtherThanMinusOneIsUnknownWithAWarning() throws Exception {
    FixtureNode node = FixtureVariants.mixedNode(root);
    Path sysfs = node.tree().sysfsRoot();
    Path dir = sysfs.resolve("bus/pci/devices/0000:c1:00.0").toRealPath();
    Files.writeString(dir.resolve("numa_node"), "-5\n");

    try (LogCapture logs = LogCapture.of(SysfsPciScanner.class)) {
      assertThat(new SysfsPciScanner(sysfs).scan("0000:c1:00.0").orElseThrow().numaNode())
          .isEqualTo(-1);
      assertThat(logs.warnings()).anySatisfy(w -> assertThat(w).contains("-5"));
    }
  }

  private static void fifo(Path file) throws Exception {
    Files.delete(file);
    Process mkfifo = new ProcessBuilder("mkfifo", file.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor()).isZero();
  }

  /** Opens the FIFO for writing and closes it: the reader blocked in open() gets end-of-file. */
  private static void unblock(Path fifo) throws Exception {
    try (var out = Files.newOutputStream(fifo, StandardOpenOption.WRITE)) {
      out.flush();
    }
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
