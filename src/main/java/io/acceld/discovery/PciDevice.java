package io.acceld.discovery;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One PCI function as sysfs describes it. Attributes sysfs may lack (virtual functions have no link
 * speed, an unbound device has no driver) are empty rather than errors.
 *
 * @param address normalised address, {@code 0000:3b:00.0}
 * @param vendor PCI vendor ID
 * @param device PCI device ID
 * @param classCode 24-bit class code: base class, subclass, programming interface
 * @param subsystemVendor subsystem vendor ID, 0 when unknown
 * @param subsystemDevice subsystem device ID, 0 when unknown
 * @param numaNode NUMA node, -1 when unknown
 * @param localCpuList CPUs local to the device in kernel list form ({@code 0-15,32-47}), or empty
 * @param driver bound kernel driver, such as {@code nvidia} or {@code amdgpu}
 * @param iommuGroup IOMMU group number
 * @param linkSpeedGts current PCIe link speed in GT/s, empty when sysfs does not say
 * @param linkWidth current PCIe link width in lanes, empty when sysfs does not say
 * @param drmNodes DRM children ({@code card1}, {@code renderD128}), control nodes excluded
 * @param accelNodes accel-class children ({@code accel0}), as Habana devices have
 * @param productName {@code product_name} where the driver publishes one (amdgpu does)
 * @param fabricPath bridge chain from the host bridge down to this device, such as {@code
 *     [pci0000:17, 0000:17:01.0, 0000:18:00.0]}; used to estimate PCIe closeness
 * @param amdgpu amdgpu's own attributes (partitions, module version); {@link AmdgpuAttributes#NONE}
 *     for every other device
 */
public record PciDevice(
    String address,
    int vendor,
    int device,
    int classCode,
    int subsystemVendor,
    int subsystemDevice,
    int numaNode,
    String localCpuList,
    Optional<String> driver,
    OptionalInt iommuGroup,
    Optional<Double> linkSpeedGts,
    OptionalInt linkWidth,
    List<String> drmNodes,
    List<String> accelNodes,
    Optional<String> productName,
    List<String> fabricPath,
    AmdgpuAttributes amdgpu) {

  public PciDevice {
    Objects.requireNonNull(address, "address");
    drmNodes = List.copyOf(drmNodes);
    accelNodes = List.copyOf(accelNodes);
    fabricPath = List.copyOf(fabricPath);
    Objects.requireNonNull(amdgpu, "amdgpu");
  }

  /** The base class byte: 0x03 display, 0x12 processing accelerator, 0x02 network. */
  public int baseClass() {
    return (classCode >> 16) & 0xff;
  }

  /** Base class and subclass as one 16-bit value: 0x0302 is a 3D controller. */
  public int classAndSubclass() {
    return (classCode >> 8) & 0xffff;
  }

  public boolean boundTo(String driverName) {
    return driver.map(driverName::equals).orElse(false);
  }

  /** What a classification rule looks at. */
  public PciIdentity identity() {
    return new PciIdentity(vendor, device, classCode, driver);
  }
}
