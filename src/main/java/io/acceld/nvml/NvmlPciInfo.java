package io.acceld.nvml;

import java.util.Locale;

/**
 * PCI identity of a GPU as NVML reports it.
 *
 * @param busId NVML's form, e.g. {@code 00000000:3B:00.0}
 * @param pciDeviceId {@code (deviceId << 16) | vendorId}
 */
public record NvmlPciInfo(
    int domain, int bus, int device, int pciDeviceId, int pciSubSystemId, String busId) {

  /**
   * The sysfs form, e.g. {@code 0000:3b:00.0}: the key that joins NVML devices to the PCI scan.
   * Built from the integers rather than by editing {@link #busId()} so both NVML string formats (8-
   * and 4-digit domain, upper case) end up identical.
   */
  public String sysfsAddress() {
    return sysfsAddress(domain, bus, device);
  }

  /** {@code %04x:%02x:%02x.0}; NVML always reports function 0. */
  public static String sysfsAddress(int domain, int bus, int device) {
    return String.format(Locale.ROOT, "%04x:%02x:%02x.0", domain, bus, device);
  }

  public int vendorId() {
    return pciDeviceId & 0xffff;
  }

  public int deviceId() {
    return pciDeviceId >>> 16;
  }
}
