package io.acceld.simulate;

import io.acceld.config.MigLayout;
import io.acceld.inventory.PcieLevel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The reference node {@code --simulate} runs the agent on, built as a real file tree; tests use it
 * too. Nodes and changes only tests need (the mixed node, hot plug, NVML faults) are in the test
 * fixtures ({@code src/testFixtures/java}), so they do not ship.
 */
public final class Fixtures {
  public static final String NVIDIA_DRIVER = "550.54.15";
  public static final int CUDA_DRIVER = 12040;
  public static final String H100 = "NVIDIA H100 80GB HBM3";
  public static final long H100_MEMORY = 85_520_809_984L;

  /** The simulated machine's DMI product name: an 8-GPU H100 server's. */
  public static final String MACHINE = "PowerEdge XE9680";

  private static final String[] EIGHT_GPU_HOST_BRIDGES = {"17", "37", "97", "b7"};

  static final String NUMA0_CPUS = "0-55,112-167";
  static final String NUMA1_CPUS = "56-111,168-223";

  private Fixtures() {}

  /** The simulated host's CPUs and memory, as its procfs reports them. */
  public static final int SIMULATED_CPUS = 32;

  public static final long SIMULATED_MEMORY_KB = 256L * 1024 * 1024;

  /** GPUs per group: an NVLink island, two NUMA nodes, four PCIe switches. */
  public static final int GROUP_SIZE = 8;

  /** The most GPUs {@link #node} builds: a PCI domain per group, and CPU numbers below 4096. */
  public static final int MAX_GPUS = 256;

  /** CPUs of each NUMA node past the first group's two, numbered after theirs. */
  private static final int CPUS_PER_EXTRA_NUMA = 56;

  private static final int FIRST_GROUP_CPUS = 224;

  /**
   * A DGX-like node: eight H100s on two NUMA nodes, two per PCIe switch, four switches on four host
   * bridges; NVLink pairs (0,1) (2,3) (4,5) (6,7) with 6 links and (0,2) (1,3) (4,6) (5,7) with 2.
   * Also an NVSwitch management function, two ConnectX NICs, a BMC VGA controller and the bridges,
   * none of which may be advertised.
   */
  public static FixtureNode eightGpuNode(Path root) {
    return node(root, GROUP_SIZE);
  }

  /**
   * {@code gpuCount} H100s in groups of eight, each group laid out as {@link #eightGpuNode} is (its
   * own two NUMA nodes, four switches, two NICs, NVSwitch and NVLink island) in PCI domain {@code
   * group}, so the first group is exactly the eight-GPU node. GPUs of different groups share no
   * NVLink and meet only at SYSTEM level. A last partial group keeps its GPUs' places. For scaling
   * runs ({@code --simulate-gpus}): the per-device cost of a big node shows.
   */
  public static FixtureNode node(Path root, int gpuCount) {
    return node(root, gpuCount, MigLayout.NONE);
  }

  /**
   * {@link #node(Path, int)} with the GPUs {@code mig} names in MIG mode. A MIG node also gets what
   * the driver gives one: {@code /proc/driver/nvidia-caps/mig-minors} for every GPU, and the {@code
   * /dev/nvidia-caps} access nodes of every possible GPU and compute instance (nvidia-modprobe
   * makes them on demand on a real node), so a re-partition at run time finds its nodes.
   */
  public static FixtureNode node(Path root, int gpuCount, MigLayout mig) {
    if (gpuCount < 1 || gpuCount > MAX_GPUS) {
      throw new IllegalArgumentException("gpu count must be 1.." + MAX_GPUS + ": " + gpuCount);
    }
    FakeNodeTree tree = new FakeNodeTree(root);
    List<SimulatedGpu> gpus = new ArrayList<>();
    for (int group = 0; group * GROUP_SIZE < gpuCount; group++) {
      writeGroup(tree, group, Math.min(GROUP_SIZE, gpuCount - group * GROUP_SIZE), gpus);
    }
    bmc(tree);
    tree.sysfsFile("class/dmi/id/product_name", MACHINE + "\n");
    tree.charDevice("nvidiactl", NVIDIA_MAJOR, 255);
    tree.charDevice("nvidia-modeset", NVIDIA_MAJOR, 254);
    tree.charDevice("nvidia-uvm", NVIDIA_UVM_MAJOR, 0);
    tree.charDevice("nvidia-uvm-tools", NVIDIA_UVM_MAJOR, 1);
    tree.procFile(
        "devices",
        "Character devices:\n"
            + NVIDIA_MAJOR
            + " nvidia\n"
            + DRM_MAJOR
            + " drm\n"
            + NVIDIA_CAPS_MAJOR
            + " nvidia-caps\n"
            + NVIDIA_UVM_MAJOR
            + " nvidia-uvm\n\nBlock devices:\n  8 sd\n");
    if (!mig.isEmpty()) {
      for (int gpu : mig.profiles().keySet()) {
        if (gpu >= gpuCount) {
          throw new IllegalArgumentException(
              "--simulate-mig names GPU " + gpu + " but the node has " + gpuCount);
        }
      }
      migCapabilities(tree, gpuCount);
    }
    // What the Mesos bridge offers beside the GPUs: an HGX-class host's CPUs and memory.
    StringBuilder cpuinfo = new StringBuilder();
    for (int cpu = 0; cpu < SIMULATED_CPUS; cpu++) {
      cpuinfo.append("processor\t: ").append(cpu).append("\nvendor_id\t: GenuineIntel\n\n");
    }
    tree.procFile("cpuinfo", cpuinfo.toString());
    tree.procFile("meminfo", "MemTotal:       " + SIMULATED_MEMORY_KB + " kB\n");

    List<FixtureNode.GpuLink> links = new ArrayList<>();
    for (int i = 0; i < gpus.size(); i++) {
      for (int j = i + 1; j < gpus.size(); j++) {
        links.add(new FixtureNode.GpuLink(i, j, level(i, j), nvlinks(i, j)));
      }
    }
    return new FixtureNode(tree, gpus, links, mig);
  }

  /** The dynamic major the simulated driver gives {@code nvidia-caps} in {@code /proc/devices}. */
  public static final int NVIDIA_CAPS_MAJOR = 235;

  /** NVIDIA's registered major: {@code /dev/nvidia<minor>}, {@code nvidiactl}, modeset. */
  public static final int NVIDIA_MAJOR = 195;

  /** The dynamic major the simulated {@code nvidia-uvm} module gets. */
  public static final int NVIDIA_UVM_MAJOR = 511;

  /** The kernel's DRM major: {@code /dev/dri/card<N>} and {@code renderD<N>}. */
  public static final int DRM_MAJOR = 226;

  /** GPU instances 0..14 and compute instances 0..7 per GPU, as the driver's table lists them. */
  private static final int MIG_GPU_INSTANCES = 15;

  private static final int MIG_COMPUTE_INSTANCES = 8;

  /**
   * The driver's MIG capability table and nodes: {@code config 1}, {@code monitor 2}, then for GPU
   * minor g, GPU instance i and its compute instances c minors {@code 3 + 135g + 9i} and {@code 4 +
   * 135g + 9i + c}, the layout the MIG user guide's examples follow.
   */
  private static void migCapabilities(FakeNodeTree tree, int gpuCount) {
    StringBuilder minors = new StringBuilder("config 1\nmonitor 2\n");
    tree.charDevice("nvidia-caps/nvidia-cap1", NVIDIA_CAPS_MAJOR, 1);
    tree.charDevice("nvidia-caps/nvidia-cap2", NVIDIA_CAPS_MAJOR, 2);
    for (int gpu = 0; gpu < gpuCount; gpu++) {
      for (int gi = 0; gi < MIG_GPU_INSTANCES; gi++) {
        int giMinor = 3 + 135 * gpu + 9 * gi;
        minors.append("gpu").append(gpu).append("/gi").append(gi).append("/access ");
        minors.append(giMinor).append('\n');
        tree.charDevice("nvidia-caps/nvidia-cap" + giMinor, NVIDIA_CAPS_MAJOR, giMinor);
        for (int ci = 0; ci < MIG_COMPUTE_INSTANCES; ci++) {
          int ciMinor = giMinor + 1 + ci;
          minors.append("gpu").append(gpu).append("/gi").append(gi).append("/ci").append(ci);
          minors.append("/access ").append(ciMinor).append('\n');
          tree.charDevice("nvidia-caps/nvidia-cap" + ciMinor, NVIDIA_CAPS_MAJOR, ciMinor);
        }
      }
    }
    tree.procFile("driver/nvidia-caps/mig-minors", minors.toString());
  }

  /** One group's switches, GPUs, NICs and NVSwitch, its GPUs appended to {@code gpus}. */
  private static void writeGroup(
      FakeNodeTree tree, int group, int groupGpus, List<SimulatedGpu> gpus) {
    for (int sw = 0; sw * 2 < groupGpus; sw++) {
      int numa = 2 * group + (sw < 2 ? 0 : 1);
      String cpus = numaCpus(numa);
      List<String> switchFabric = gpuFabric(group * GROUP_SIZE + sw * 2);
      String host = switchFabric.get(0);
      String rootPort = switchFabric.get(1);
      String upstream = switchFabric.get(2);
      int base = Integer.parseInt(EIGHT_GPU_HOST_BRIDGES[sw], 16);
      bridge(tree, rootPort, 0x8086, 0x352a, numa, cpus, host);
      bridge(tree, upstream, 0x1000, 0xc030, numa, cpus, host, rootPort);
      for (int slot = 0; slot < 2 && sw * 2 + slot < groupGpus; slot++) {
        int index = group * GROUP_SIZE + sw * 2 + slot;
        String downstream = gpuFabric(index).get(3);
        String address = String.format("%04x:%02x:00.0", group, base + 3 + slot);
        bridge(tree, downstream, 0x1000, 0xc030, numa, cpus, host, rootPort, upstream);
        SimulatedGpu gpu =
            new SimulatedGpu(
                index, gpuUuid(index), H100, address, 0x2330, index, H100_MEMORY, numa, cpus);
        gpus.add(gpu);
        writeGpu(tree, gpu);
        tree.charDevice("nvidia" + index, NVIDIA_MAJOR, index);
        tree.procFile(
            "driver/nvidia/gpus/" + address + "/information",
            "Model: \t\t "
                + H100
                + "\nIRQ:   \t\t 0\nGPU UUID: \t "
                + gpu.uuid()
                + "\nBus Location: \t "
                + address
                + "\nDevice Minor: \t "
                + index
                + "\n");
      }
      // A NIC on every other switch, as GPU nodes pair them for GPUDirect.
      if (sw % 2 == 0) {
        String nicPort = String.format("%04x:%02x:02.0", group, base + 2);
        String nic = String.format("%04x:%02x:00.0", group, base + 5);
        bridge(tree, nicPort, 0x1000, 0xc030, numa, cpus, host, rootPort, upstream);
        tree.pci(nic)
            .id(0x15b3, 0x1021)
            .pciClass(0x020700)
            .numa(numa, cpus)
            .driver("mlx5_core")
            .link("32.0 GT/s PCIe", 16)
            .under(host, rootPort, upstream, nicPort)
            .write();
      }
    }
    // NVSwitch management function: NVIDIA, but class 0x0680, so never a GPU.
    String domainRoot = String.format("pci%04x:00", group);
    String nvswitchPort = String.format("%04x:00:01.0", group);
    String groupCpus = numaCpus(2 * group);
    tree.pci(String.format("%04x:05:00.0", group))
        .id(0x10de, 0x22a3)
        .pciClass(0x068000)
        .numa(2 * group, groupCpus)
        .driver("nvidia-nvswitch")
        .under(domainRoot, nvswitchPort)
        .write();
    bridge(tree, nvswitchPort, 0x8086, 0x352a, 2 * group, groupCpus, domainRoot);
  }

  /**
   * The CPUs of simulated NUMA node {@code numa}: the eight-GPU node's two big ones, then 56 each,
   * so 256 GPUs' 64 nodes stay below CPU 4096 (the most NVML's affinity masks are read for).
   */
  private static String numaCpus(int numa) {
    if (numa == 0) {
      return NUMA0_CPUS;
    }
    if (numa == 1) {
      return NUMA1_CPUS;
    }
    int first = FIRST_GROUP_CPUS + (numa - 2) * CPUS_PER_EXTRA_NUMA;
    return first + "-" + (first + CPUS_PER_EXTRA_NUMA - 1);
  }

  /**
   * The PCI function of a GPU of {@link #node}: two per switch, a switch per host bridge.
   * Package-private so the test fixtures can plug it back after an unplug.
   */
  static void writeGpu(FakeNodeTree tree, SimulatedGpu gpu) {
    List<String> fabric = gpuFabric(gpu.index());
    tree.pci(gpu.pciAddress())
        .id(0x10de, gpu.pciDeviceId())
        .pciClass(0x030200)
        .subsystem(0x10de, 0x16c1)
        .numa(gpu.numaNode(), gpu.cpus())
        .driver("nvidia")
        .iommuGroup(20 + gpu.index())
        .link("32.0 GT/s PCIe", 16)
        .under(fabric.get(0), fabric.subList(1, fabric.size()).toArray(String[]::new))
        .write();
  }

  /**
   * Where GPU {@code index} of {@link #node} sits: its host bridge, root port, and the upstream and
   * downstream ports of its switch (two GPUs per switch, a switch per host bridge, a PCI domain per
   * group of eight).
   */
  private static List<String> gpuFabric(int index) {
    int domain = index / GROUP_SIZE;
    String hb = EIGHT_GPU_HOST_BRIDGES[(index % GROUP_SIZE) / 2];
    int base = Integer.parseInt(hb, 16);
    return List.of(
        String.format("pci%04x:%s", domain, hb),
        String.format("%04x:%s:01.0", domain, hb),
        String.format("%04x:%02x:00.0", domain, base + 1),
        String.format("%04x:%02x:%02x.0", domain, base + 2, index % 2));
  }

  /** PCIe level between GPUs {@code i} and {@code j} of {@link #node}: SYSTEM across groups. */
  public static PcieLevel level(int i, int j) {
    if (i / GROUP_SIZE != j / GROUP_SIZE) {
      return PcieLevel.SYSTEM;
    }
    return eightGpuLevel(i % GROUP_SIZE, j % GROUP_SIZE);
  }

  /** NVLink count between GPUs {@code i} and {@code j} of {@link #node}: none across groups. */
  public static int nvlinks(int i, int j) {
    if (i / GROUP_SIZE != j / GROUP_SIZE) {
      return 0;
    }
    return eightGpuNvlinks(i % GROUP_SIZE, j % GROUP_SIZE);
  }

  /** PCIe level between GPUs {@code i} and {@code j} of {@link #eightGpuNode}. */
  public static PcieLevel eightGpuLevel(int i, int j) {
    if (i / 2 == j / 2) {
      return PcieLevel.SINGLE;
    }
    return i / 4 == j / 4 ? PcieLevel.NODE : PcieLevel.SYSTEM;
  }

  /** NVLink count between GPUs {@code i} and {@code j} of {@link #eightGpuNode}. */
  public static int eightGpuNvlinks(int i, int j) {
    int a = Math.min(i, j);
    int b = Math.max(i, j);
    if (b - a == 1 && a % 2 == 0) {
      return 6;
    }
    if (b - a == 2 && a / 4 == b / 4) {
      return 2;
    }
    return 0;
  }

  /**
   * ASPEED AST2600 BMC VGA (class 0x0300, with a DRM card) behind its PCI bridge. Package-private,
   * like {@link #bridge}, for the test fixtures' other nodes.
   */
  static void bmc(FakeNodeTree tree) {
    bridge(tree, "0000:00:1c.0", 0x8086, 0x1bbc, 0, NUMA0_CPUS, "pci0000:00");
    bridge(tree, "0000:02:00.0", 0x1a03, 0x1150, 0, NUMA0_CPUS, "pci0000:00", "0000:00:1c.0");
    tree.pci("0000:03:00.0")
        .id(0x1a03, 0x2000)
        .pciClass(0x030000)
        .subsystem(0x1a03, 0x2000)
        .numa(0, NUMA0_CPUS)
        .driver("ast")
        .under("pci0000:00", "0000:00:1c.0", "0000:02:00.0")
        .drm("card0")
        .write();
    tree.charDevice("dri/card0", DRM_MAJOR, 0);
  }

  static void bridge(
      FakeNodeTree tree,
      String address,
      int vendor,
      int device,
      int numa,
      String cpus,
      String hostBridge,
      String... parents) {
    tree.pci(address)
        .id(vendor, device)
        .pciClass(0x060400)
        .numa(numa, cpus)
        .driver("pcieport")
        .under(hostBridge, parents)
        .write();
  }

  /**
   * A stable, realistic-looking UUID for fixture GPU {@code index}: 122 bits mixed from the index
   * (SplitMix64's finaliser), marked as a version-8 (custom) RFC 9562 UUID. Not a name-based MD5
   * UUID: MD5 loads the JDK's security providers, and what the simulated node loads is what the
   * class-data archive, trained on it, holds for every node.
   */
  public static String gpuUuid(int index) {
    long high = mix(0x6163_6365_6C64_4750L + index * 0x9E37_79B9_7F4A_7C15L);
    long low = mix(high ^ 0xD1B5_4A32_D192_ED03L);
    high = (high & ~0xF000L) | 0x8000L;
    low = (low & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return "GPU-" + new UUID(high, low);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
    return z ^ (z >>> 31);
  }
}
