package io.acceld.allocation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The available advertised IDs grouped by the physical device behind them. Each group is one "unit"
 * of the search. Without sharing every unit holds exactly one ID.
 *
 * <p>Units are indexed in the order of their lowest available ID (their <em>representative</em>,
 * the ID handed out when the unit is picked once), so index order is the order of the IDs the
 * allocator returns, and the searches' index tie-break is the ID tie-break.
 */
final class PhysicalUnits {
  private final List<String> physicalIds;
  private final List<List<String>> replicas;
  private final Map<String, Integer> unitById;

  private PhysicalUnits(List<String> physicalIds, List<List<String>> replicas) {
    this.physicalIds = physicalIds;
    this.replicas = replicas;
    this.unitById = new HashMap<>();
    for (int u = 0; u < replicas.size(); u++) {
      for (String id : replicas.get(u)) {
        unitById.put(id, u);
      }
    }
  }

  /**
   * @param sortedAvailable distinct advertised IDs in ascending order
   * @param physicalOf advertised ID to physical device ID; a {@code null} answer means the ID is
   *     its own device
   */
  static PhysicalUnits group(List<String> sortedAvailable, Function<String, String> physicalOf) {
    // Insertion order follows the sorted IDs, so each group's first ID is its lowest.
    Map<String, List<String>> byPhysical = new LinkedHashMap<>();
    for (String id : sortedAvailable) {
      String physical = physicalOf.apply(id);
      byPhysical.computeIfAbsent(physical == null ? id : physical, p -> new ArrayList<>()).add(id);
    }
    List<Map.Entry<String, List<String>>> groups = new ArrayList<>(byPhysical.entrySet());
    groups.sort(Comparator.comparing(e -> e.getValue().get(0)));
    List<String> physicalIds = new ArrayList<>(groups.size());
    List<List<String>> replicas = new ArrayList<>(groups.size());
    for (Map.Entry<String, List<String>> group : groups) {
      physicalIds.add(group.getKey());
      replicas.add(List.copyOf(group.getValue()));
    }
    return new PhysicalUnits(List.copyOf(physicalIds), List.copyOf(replicas));
  }

  int count() {
    return physicalIds.size();
  }

  List<String> physicalIds() {
    return physicalIds;
  }

  /** The unit's available advertised IDs, ascending. */
  List<String> replicas(int unit) {
    return replicas.get(unit);
  }

  /** How many advertised IDs of each unit are available: the less-loaded tie-break weight. */
  int[] availableReplicaCounts() {
    int[] counts = new int[count()];
    for (int u = 0; u < counts.length; u++) {
      counts[u] = replicas.get(u).size();
    }
    return counts;
  }

  /** The unit holding an available ID. */
  int unitOf(String id) {
    return unitById.get(id);
  }

  /** The distinct units holding the given available IDs, ascending. */
  int[] unitsOf(Collection<String> ids) {
    return ids.stream().mapToInt(unitById::get).distinct().sorted().toArray();
  }

  @Override
  public String toString() {
    return "PhysicalUnits" + Arrays.toString(replicas.toArray());
  }
}
