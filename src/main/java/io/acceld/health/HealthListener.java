package io.acceld.health;

import io.acceld.inventory.Device;

/** What the health sources report. Called on their threads; implementations must be quick. */
public interface HealthListener {
  /** The ledger changed: republish the inventory. */
  void changed();

  /** An XID arrived for {@code device}; {@code ignored} when the policy lets it pass. */
  default void xid(Device device, int xid, boolean ignored) {}

  /** A corrected (single-bit) ECC error: counted, never condemning. */
  default void singleBitEcc(Device device) {}
}
