package io.acceld.allocation;

import java.util.Set;

/**
 * Fills a request larger than the number of distinct physical devices: every device once, then
 * repeatedly the device with the most replicas still unpicked, so load stays even and the
 * least-loaded devices absorb the extra. Topology plays no part here: every device is in the set
 * anyway, and two replicas of one device are as close as two IDs can be.
 */
final class ReplicaReuse {
  private ReplicaReuse() {}

  /**
   * @param units the available IDs by physical device
   * @param chosen the must-include IDs on entry; the full answer on return
   * @param size the requested size, at most the number of available IDs
   */
  static void fill(PhysicalUnits units, Set<String> chosen, int size) {
    int[] remaining = units.availableReplicaCounts();
    boolean[] used = new boolean[units.count()];
    for (int u : units.unitsOf(chosen)) {
      used[u] = true;
    }
    for (String id : chosen) {
      remaining[units.unitOf(id)]--;
    }
    for (int u = 0; u < units.count() && chosen.size() < size; u++) {
      if (!used[u]) {
        take(units, u, chosen, remaining);
      }
    }
    while (chosen.size() < size) {
      int most = -1;
      for (int u = 0; u < units.count(); u++) {
        if (remaining[u] > 0 && (most < 0 || remaining[u] > remaining[most])) {
          most = u;
        }
      }
      if (most < 0) {
        return; // cannot happen: size <= |available|; stop rather than loop
      }
      take(units, most, chosen, remaining);
    }
  }

  /** Adds the unit's lowest replica not yet chosen. */
  private static void take(PhysicalUnits units, int unit, Set<String> chosen, int[] remaining) {
    for (String id : units.replicas(unit)) {
      if (chosen.add(id)) {
        remaining[unit]--;
        return;
      }
    }
  }
}
