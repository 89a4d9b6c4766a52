package io.acceld.allocation;

import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.Topology;
import java.util.Map;

/**
 * What the allocator needs to know about how physical devices are connected. Keyed by physical
 * device ID, never by an advertised replica ID: two replicas of one GPU are the same device.
 *
 * <p>Implementations must be symmetric in their two arguments and must not throw for an ID they do
 * not know; the allocator still treats a {@code null} level as {@link PcieLevel#UNKNOWN} and a
 * negative NVLink count as zero, because a topology is often assembled from partial probes.
 */
public interface AllocationTopology {

  /** Number of NVLinks directly between the two devices; 0 when none or unknown. */
  int nvlinks(String physicalA, String physicalB);

  /** Closest common PCIe ancestor of the two devices; {@link PcieLevel#UNKNOWN} when not known. */
  PcieLevel level(String physicalA, String physicalB);

  /** NUMA node of the device; -1 when unknown. */
  int numaNode(String physicalId);

  /**
   * Adapts the inventory's pairwise {@link Topology} and a per-device NUMA map (as read from {@code
   * numa_node} in sysfs). {@code null} arguments mean "nothing known", so a node without topology
   * probes still gets a (purely ID-ordered) answer rather than an error.
   */
  static AllocationTopology of(Topology topology, Map<String, Integer> numaById) {
    return new InventoryAllocationTopology(
        topology == null ? Topology.EMPTY : topology, numaById == null ? Map.of() : numaById);
  }
}
