package io.acceld.simulate;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  /** The MI300X's PCI device ID, product name and KFD figures, as the fixture below has them. */
  public static final int MI300X_DEVICE_ID = 0x74a1;

  public static final String MI300X = "AMD Instinct MI300X";
  public static final int MI300X_SIMDS = 1216;
  public static final int MI300X_SIMDS_PER_CU = 4;

  /** Its first memory bank, 191.98 GiB: what the node labeller rounds to 192G. */
  public static final long MI300X_VRAM = 206_141_652_992L;

  public static final String AMDGPU_VERSION = "6.8.5";
  public static final String AMDGPU_SRCVERSION = "2B1A9F3C0E4D5A6B7C8D9E0";

  /**
   * An AMD Instinct node: {@code gpus} MI300X (processing accelerators, class 0x1200) on two NUMA
   * nodes, bound to amdgpu (module version and srcversion under {@code /sys/module}), each with its
   * DRM card and render node, in SPX compute and NPS1 memory partition mode with the partition
   * modes offered; the KFD topology has two CPU nodes and a GPU node per card (render minor, SIMD
   * counts, VRAM bank). Beside them the BMC's VGA controller.
   */
  public static FixtureNode mi300xNode(Path root, int gpus) {
    FakeNodeTree tree = new FakeNodeTree(root);
    tree.driverModule("amdgpu", AMDGPU_VERSION, AMDGPU_SRCVERSION);
    for (int cpu = 0; cpu < 2; cpu++) {
      tree.kfdNode(cpu, kfdProperties(96, 0, 0, 0, 0, 0), 0);
    }
    for (int i = 0; i < gpus; i++) {
      int numa = i < gpus / 2 ? 0 : 1;
      String cpus = numa == 0 ? "0-95" : "96-191";
      int bus = 0x05 + 0x20 * i;
      String port = String.format("0000:%02x:01.0", bus - 1);
      String hostBridge = String.format("pci0000:%02x", bus - 2);
      String address = String.format("0000:%02x:00.0", bus);
      Fixtures.bridge(tree, port, 0x1022, 0x14ab, numa, cpus, hostBridge);
      tree.pci(address)
          .id(0x1002, MI300X_DEVICE_ID)
          .pciClass(0x120000)
          .subsystem(0x1002, 0x74a1)
          .numa(numa, cpus)
          .driver("amdgpu")
          .iommuGroup(70 + i)
          .link("32.0 GT/s PCIe", 16)
          .productName(MI300X)
          .attribute("current_compute_partition", "SPX")
          .attribute("current_memory_partition", "NPS1")
          .attribute("available_compute_partition", "SPX, DPX, QPX, CPX")
          .attribute("available_memory_partition", "NPS1, NPS4")
          .under(hostBridge, port)
          .drm("card" + (1 + i), "renderD" + (128 + i))
          .write();
      tree.kfdNode(
          2 + i,
          kfdProperties(0, MI300X_SIMDS, MI300X_SIMDS_PER_CU, 128 + i, bus << 8, 90402),
          MI300X_VRAM);
      tree.devNode("dri/card" + (1 + i)).devNode("dri/renderD" + (128 + i));
    }
    tree.devNode("kfd");
    Fixtures.bmc(tree);
    return new FixtureNode(tree, List.of(), List.of());
  }

  /** A KFD node's properties, as the kernel lists them (the ones the agent reads, and a few). */
  private static Map<String, Long> kfdProperties(
      int cpuCores, int simds, int simdsPerCu, int renderMinor, int locationId, int gfxTarget) {
    Map<String, Long> p = new LinkedHashMap<>();
    p.put("cpu_cores_count", (long) cpuCores);
    p.put("simd_count", (long) simds);
    p.put("mem_banks_count", 1L);
    p.put("simd_per_cu", (long) simdsPerCu);
    p.put("gfx_target_version", (long) gfxTarget);
    p.put("vendor_id", simds > 0 ? 0x1002L : 0L);
    p.put("device_id", simds > 0 ? (long) MI300X_DEVICE_ID : 0L);
    p.put("location_id", (long) locationId);
    p.put("domain", 0L);
    p.put("drm_render_minor", (long) renderMinor);
    return p;
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
