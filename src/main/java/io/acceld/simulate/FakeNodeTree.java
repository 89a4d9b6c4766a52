package io.acceld.simulate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a node's {@code sys}, {@code dev} and {@code proc} trees as real files, directories and
 * relative symlinks, laid out as the kernel lays them out. Tests and simulate mode point the
 * agent's roots at it; the agent cannot tell it from a real node. It only builds: taking parts away
 * again (unplug) is the test fixtures' {@code HotPlug}.
 */
public final class FakeNodeTree {
  private final Path sysfsRoot;
  private final Path devRoot;
  private final Path procRoot;

  public FakeNodeTree(Path root) {
    this.sysfsRoot = root.resolve("sys");
    this.devRoot = root.resolve("dev");
    this.procRoot = root.resolve("proc");
    for (Path p :
        List.of(
            sysfsRoot.resolve("bus/pci/devices"),
            sysfsRoot.resolve("devices"),
            devRoot,
            procRoot)) {
      mkdirs(p);
    }
  }

  public Path sysfsRoot() {
    return sysfsRoot;
  }

  public Path devRoot() {
    return devRoot;
  }

  public Path procRoot() {
    return procRoot;
  }

  /** Starts a PCI function at {@code address}; call {@link PciFunction#write()} to create it. */
  public PciFunction pci(String address) {
    return new PciFunction(address);
  }

  /**
   * Creates a device node, such as {@code nvidia0} or {@code dri/renderD128}, as an empty file: as
   * much as discovery, which only checks that it exists, needs.
   */
  public FakeNodeTree devNode(String relative) {
    Path node = replace(relative);
    writeFile(node, "");
    return this;
  }

  /** A file under the sysfs root, such as {@code class/dmi/id/product_name}. */
  public FakeNodeTree sysfsFile(String relative, String content) {
    Path file = sysfsRoot.resolve(relative);
    mkdirs(file.getParent());
    writeFile(file, content);
    return this;
  }

  /**
   * A kernel module's {@code version} and {@code srcversion} ({@code /sys/module/<name>}), linked
   * from its PCI driver directory as {@code module}, which is how a device's {@code
   * driver/module/version} resolves.
   */
  public FakeNodeTree driverModule(String driver, String version, String srcversion) {
    Path module = sysfsRoot.resolve("module").resolve(driver);
    mkdirs(module);
    writeFile(module.resolve("version"), version + "\n");
    writeFile(module.resolve("srcversion"), srcversion + "\n");
    Path driverDir = sysfsRoot.resolve("bus/pci/drivers").resolve(driver);
    mkdirs(driverDir);
    symlink(driverDir.resolve("module"), module);
    return this;
  }

  /**
   * One node of amdgpu's KFD topology ({@code class/kfd/kfd/topology/nodes/<node>}): its {@code
   * properties} as {@code name value} lines, and for a GPU node ({@code vramBytes} above 0) its
   * first memory bank.
   */
  public FakeNodeTree kfdNode(int node, Map<String, Long> properties, long vramBytes) {
    Path dir = sysfsRoot.resolve("class/kfd/kfd/topology/nodes").resolve(Integer.toString(node));
    mkdirs(dir);
    StringBuilder text = new StringBuilder();
    properties.forEach((name, value) -> text.append(name).append(' ').append(value).append('\n'));
    writeFile(dir.resolve("properties"), text.toString());
    if (vramBytes > 0) {
      Path bank = dir.resolve("mem_banks/0");
      mkdirs(bank);
      writeFile(
          bank.resolve("properties"),
          "heap_type 1\nsize_in_bytes " + vramBytes + "\nflags 0\nwidth 8192\nmem_clk_max 1300\n");
    }
    return this;
  }

  /**
   * Creates a device node as the kernel does, a character device {@code major:minor} readable and
   * writable by all (NVIDIA's default), so that what stats it ({@code acceld doctor}) sees a real
   * node. Without the privilege to make one (not root) it is an empty file, as {@link #devNode}.
   */
  public FakeNodeTree charDevice(String relative, int major, int minor) {
    Path node = replace(relative);
    if (CharDevices.create(node, major, minor, 0666)) {
      try {
        // mknod's mode passed through the umask; chmod, which opens nothing, sets it as asked.
        Files.setPosixFilePermissions(node, PosixFilePermissions.fromString("rw-rw-rw-"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    } else {
      writeFile(node, "");
    }
    return this;
  }

  /**
   * Makes way for a node: never write through an existing one, which may be a device node whose
   * open would reach a real device.
   */
  private Path replace(String relative) {
    Path node = devRoot.resolve(relative);
    mkdirs(node.getParent());
    try {
      Files.deleteIfExists(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return node;
  }

  public FakeNodeTree procFile(String relative, String content) {
    Path file = procRoot.resolve(relative);
    mkdirs(file.getParent());
    writeFile(file, content);
    return this;
  }

  /** A PCI function under construction. Defaults: no driver, NUMA -1, directly on host bridge 0. */
  public final class PciFunction {
    private final String address;
    private int vendor;
    private int device;
    private int classCode;
    private int subsystemVendor;
    private int subsystemDevice;
    private int numaNode = -1;
    private String cpuList = "";
    private String driver;
    private Integer iommuGroup;
    private String linkSpeed;
    private int linkWidth;
    private String productName;
    private final Map<String, String> attributes = new LinkedHashMap<>();
    private String hostBridge = "pci0000:00";
    private final List<String> bridges = new ArrayList<>();
    private final List<String> drm = new ArrayList<>();
    private final List<String> accel = new ArrayList<>();

    private PciFunction(String address) {
      this.address = address;
    }

    public PciFunction id(int vendorId, int deviceId) {
      this.vendor = vendorId;
      this.device = deviceId;
      return this;
    }

    public PciFunction pciClass(int code) {
      this.classCode = code;
      return this;
    }

    public PciFunction subsystem(int vendorId, int deviceId) {
      this.subsystemVendor = vendorId;
      this.subsystemDevice = deviceId;
      return this;
    }

    public PciFunction numa(int node, String cpus) {
      this.numaNode = node;
      this.cpuList = cpus;
      return this;
    }

    public PciFunction driver(String name) {
      this.driver = name;
      return this;
    }

    public PciFunction iommuGroup(int group) {
      this.iommuGroup = group;
      return this;
    }

    public PciFunction link(String speed, int width) {
      this.linkSpeed = speed;
      this.linkWidth = width;
      return this;
    }

    public PciFunction productName(String name) {
      this.productName = name;
      return this;
    }

    /**
     * Another attribute file of the device directory, such as {@code current_compute_partition}.
     */
    public PciFunction attribute(String name, String content) {
      attributes.put(name, content);
      return this;
    }

    /** Places the function under a host bridge and a chain of bridges, top first. */
    public PciFunction under(String hostBridgeName, String... bridgeAddresses) {
      this.hostBridge = hostBridgeName;
      this.bridges.clear();
      this.bridges.addAll(List.of(bridgeAddresses));
      return this;
    }

    public PciFunction drm(String... nodes) {
      drm.addAll(List.of(nodes));
      return this;
    }

    public PciFunction accel(String... nodes) {
      accel.addAll(List.of(nodes));
      return this;
    }

    /** Writes the device directory, its attributes and links; returns the tree for chaining. */
    public FakeNodeTree write() {
      Path dir = sysfsRoot.resolve("devices").resolve(hostBridge);
      for (String bridge : bridges) {
        dir = dir.resolve(bridge);
      }
      dir = dir.resolve(address);
      mkdirs(dir);
      writeFile(dir.resolve("vendor"), hex4(vendor));
      writeFile(dir.resolve("device"), hex4(device));
      writeFile(dir.resolve("class"), String.format(Locale.ROOT, "0x%06x\n", classCode));
      writeFile(dir.resolve("subsystem_vendor"), hex4(subsystemVendor));
      writeFile(dir.resolve("subsystem_device"), hex4(subsystemDevice));
      writeFile(dir.resolve("revision"), "0xa1\n");
      writeFile(dir.resolve("numa_node"), numaNode + "\n");
      writeFile(dir.resolve("local_cpulist"), cpuList + "\n");
      writeFile(
          dir.resolve("resource"), "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
      if (linkSpeed != null) {
        writeFile(dir.resolve("current_link_speed"), linkSpeed + "\n");
        writeFile(dir.resolve("current_link_width"), linkWidth + "\n");
        writeFile(dir.resolve("max_link_speed"), linkSpeed + "\n");
        writeFile(dir.resolve("max_link_width"), linkWidth + "\n");
      }
      if (productName != null) {
        writeFile(dir.resolve("product_name"), productName + "\n");
      }
      for (var attribute : attributes.entrySet()) {
        writeFile(dir.resolve(attribute.getKey()), attribute.getValue() + "\n");
      }
      if (driver != null) {
        Path driverDir = sysfsRoot.resolve("bus/pci/drivers").resolve(driver);
        mkdirs(driverDir);
        symlink(dir.resolve("driver"), driverDir);
        symlink(driverDir.resolve(address), dir);
      }
      if (iommuGroup != null) {
        Path group = sysfsRoot.resolve("kernel/iommu_groups").resolve(iommuGroup.toString());
        mkdirs(group.resolve("devices"));
        symlink(dir.resolve("iommu_group"), group);
        symlink(group.resolve("devices").resolve(address), dir);
      }
      for (String node : drm) {
        mkdirs(dir.resolve("drm").resolve(node));
        writeFile(dir.resolve("drm").resolve(node).resolve("dev"), "226:0\n");
      }
      for (String node : accel) {
        mkdirs(dir.resolve("accel").resolve(node));
      }
      symlink(sysfsRoot.resolve("bus/pci/devices").resolve(address), dir);
      return FakeNodeTree.this;
    }
  }

  private static String hex4(int value) {
    return String.format(Locale.ROOT, "0x%04x\n", value);
  }

  private static void symlink(Path link, Path target) {
    try {
      Files.deleteIfExists(link);
      Files.createSymbolicLink(link, link.getParent().relativize(target));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void mkdirs(Path dir) {
    if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      // The common case, several times per GPU: createDirectories would build and catch an
      // exception to learn it, which was a quarter of the simulated node's making
      return;
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeFile(Path file, String content) {
    try {
      Files.writeString(file, content, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
