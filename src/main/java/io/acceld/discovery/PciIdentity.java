package io.acceld.discovery;

import java.util.Objects;
import java.util.Optional;

/**
 * What decides whether a PCI function is an accelerator of ours ({@link DeviceClassifier}): its
 * IDs, class and driver, which cost sysfs three small reads and a link. A scan reads these for
 * every function on the bus and the rest of the attributes only for those a rule can claim: a
 * node's bridges, NICs and storage outnumber its accelerators many times.
 *
 * @param vendor PCI vendor ID
 * @param device PCI device ID
 * @param classCode 24-bit class code
 * @param driver bound kernel driver, if any
 */
public record PciIdentity(int vendor, int device, int classCode, Optional<String> driver) {
  public PciIdentity {
    Objects.requireNonNull(driver, "driver");
  }

  public boolean boundTo(String driverName) {
    return driver.map(driverName::equals).orElse(false);
  }
}
