package io.acceld.simulate;

import java.nio.file.Path;
import java.util.List;

/**
 * Reference nodes besides the eight-GPU one, which only tests use: other vendors, so discovery is
 * tried on what it must advertise and what it must leave alone.
 */
public final class FixtureVariants {
  private FixtureVariants() {}

  /** The dynamic major the mixed node's amdgpu driver gets for {@code /dev/kfd}. */
  public static final int KFD_MAJOR = 509;

  /**
   * A mixed node: two AMD Instinct MI210s on two NUMA nodes, a BMC VGA controller (ASPEED, with a
   * DRM card of its own), a Broadcom NIC and Intel root ports. Only the two AMD GPUs are
   * accelerators.
   */
  public static FixtureNode mixedNode(Path root) {
    FakeNodeTree tree = new FakeNodeTree(root);
    Fixtures.bridge(tree, "0000:40:01.1", 0x1022, 0x14ab, 0, "0-31", "pci0000:40");
    tree.pci("0000:41:00.0")
        .id(0x1002, 0x740f)
        .pciClass(0x038000)
        .subsystem(0x1002, 0x0c34)
        .numa(0, "0-31")
        .driver("amdgpu")
        .iommuGroup(41)
        .link("16.0 GT/s PCIe", 16)
        .productName("AMD Instinct MI210")
        .under("pci0000:40", "0000:40:01.1")
        .drm("card1", "renderD128")
        .write();
    Fixtures.bridge(tree, "0000:c0:01.1", 0x1022, 0x14ab, 1, "32-63", "pci0000:c0");
    tree.pci("0000:c1:00.0")
        .id(0x1002, 0x740f)
        .pciClass(0x038000)
        .subsystem(0x1002, 0x0c34)
        .numa(1, "32-63")
        .driver("amdgpu")
        .iommuGroup(42)
        .link("16.0 GT/s PCIe", 16)
        .productName("AMD Instinct MI210")
        .under("pci0000:c0", "0000:c0:01.1")
        .drm("card2", "renderD129")
        .write();
    Fixtures.bridge(tree, "0000:00:03.1", 0x1022, 0x14a5, 0, "0-31", "pci0000:00");
    tree.pci("0000:21:00.0")
        .id(0x14e4, 0x16d7)
        .pciClass(0x020000)
        .numa(0, "0-31")
        .driver("bnxt_en")
        .link("8.0 GT/s PCIe", 8)
        .under("pci0000:00", "0000:00:03.1")
        .write();
    tree.pci("0000:00:1f.2")
        .id(0x8086, 0xa182)
        .pciClass(0x010601)
        .numa(0, "0-31")
        .driver("ahci")
        .write();
    Fixtures.bmc(tree);
    tree.charDevice("kfd", KFD_MAJOR, 0);
    tree.charDevice("dri/card1", Fixtures.DRM_MAJOR, 1)
        .charDevice("dri/renderD128", Fixtures.DRM_MAJOR, 128);
    tree.charDevice("dri/card2", Fixtures.DRM_MAJOR, 2)
        .charDevice("dri/renderD129", Fixtures.DRM_MAJOR, 129);
    tree.procFile(
        "devices", "Character devices:\n" + Fixtures.DRM_MAJOR + " drm\n" + KFD_MAJOR + " kfd\n");
    return new FixtureNode(tree, List.of(), List.of());
  }

  /**
   * A Habana node: two Gaudi2 accelerators (class 0x1200) on two NUMA nodes, each with its {@code
   * accel/accel<N>} node and control node, beside the BMC VGA controller. The Gaudis are the only
   * accelerators.
   */
  public static FixtureNode gaudiNode(Path root) {
    FakeNodeTree tree = new FakeNodeTree(root);
    for (int i = 0; i < 2; i++) {
      String hostBridge = i == 0 ? "pci0000:16" : "pci0000:96";
      String port = i == 0 ? "0000:16:01.0" : "0000:96:01.0";
      String cpus = i == 0 ? "0-47" : "48-95";
      Fixtures.bridge(tree, port, 0x8086, 0x352a, i, cpus, hostBridge);
      tree.pci(i == 0 ? "0000:17:00.0" : "0000:97:00.0")
          .id(0x1da3, 0x1020)
          .pciClass(0x120000)
          .subsystem(0x1da3, 0x1020)
          .numa(i, cpus)
          .driver("habanalabs")
          .iommuGroup(60 + i)
          .link("32.0 GT/s PCIe", 16)
          .under(hostBridge, port)
          .accel("accel" + i)
          .write();
      tree.devNode("accel/accel" + i).devNode("accel/accel_controlD" + i);
    }
    Fixtures.bmc(tree);
    return new FixtureNode(tree, List.of(), List.of());
  }
}
