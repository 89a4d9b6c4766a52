package io.acceld.agent;

import io.acceld.config.DeviceExpectation;
import io.acceld.inventory.Inventory;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks an inventory against {@code --expect-devices}. Every device present counts, healthy or
 * not: an unhealthy GPU is still there and is reported by its health; what this catches is the
 * driver or the discovery seeing fewer devices than the node has.
 */
public record ExpectedDevices(List<DeviceExpectation> expectations) {
  public ExpectedDevices {
    expectations = List.copyOf(expectations);
  }

  /** One sentence per expectation {@code inventory} does not meet; empty when all are met. */
  public List<String> unmet(Inventory inventory) {
    List<String> reasons = new ArrayList<>();
    for (DeviceExpectation e : expectations) {
      int found = inventory.devicesOf(e.resource()).size();
      if (!e.metBy(found)) {
        reasons.add(
            "--expect-devices "
                + e
                + " but "
                + StartupReport.devices(found)
                + " of "
                + e.resource()
                + " were found");
      }
    }
    return reasons;
  }
}
