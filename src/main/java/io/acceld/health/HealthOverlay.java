package io.acceld.health;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Applies the health marks to a discovery snapshot. Discovery says what is present (a missing
 * device node already makes a device unhealthy); the marks say what went wrong since. A device is
 * healthy only if both agree.
 */
public final class HealthOverlay {
  private HealthOverlay() {}

  public static Inventory apply(Inventory discovered, Map<String, List<HealthMark>> marks) {
    if (marks.isEmpty()) {
      return discovered;
    }
    List<Device> changed = new ArrayList<>();
    for (Device d : discovered.devices()) {
      List<HealthMark> deviceMarks = marks.get(d.id());
      if (deviceMarks == null || deviceMarks.isEmpty()) {
        continue;
      }
      List<String> reasons = new ArrayList<>();
      d.healthReason().ifPresent(reasons::add);
      deviceMarks.forEach(m -> reasons.add(describe(m)));
      changed.add(d.withHealth(Health.UNHEALTHY, Optional.of(String.join("; ", reasons))));
    }
    return changed.isEmpty() ? discovered : discovered.withDevices(changed);
  }

  /** The reason with where it came from and when: {@code XID 79 (...) [XID since 2026-...Z]}. */
  static String describe(HealthMark mark) {
    return mark.reason() + " [" + mark.source() + " since " + mark.since() + "]";
  }
}
