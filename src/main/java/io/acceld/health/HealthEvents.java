package io.acceld.health;

import io.acceld.inventory.Device;

/**
 * Health events worth counting (metrics): they are reported whether or not they mark the device.
 */
public interface HealthEvents {
  HealthEvents NONE = new HealthEvents() {};

  /** An XID arrived for {@code device}; {@code ignored} when the policy lets it pass. */
  default void xid(Device device, int xid, boolean ignored) {}

  /** A corrected (single-bit) ECC error: counted, never condemning. */
  default void singleBitEcc(Device device) {}
}
