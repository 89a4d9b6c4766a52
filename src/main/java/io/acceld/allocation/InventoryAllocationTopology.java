package io.acceld.allocation;

import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.Topology;
import java.util.HashMap;
import java.util.Map;

/** {@link AllocationTopology} over the inventory's {@link Topology}; see {@link #of}. */
final class InventoryAllocationTopology implements AllocationTopology {
  private final Topology topology;
  private final Map<String, Integer> numaById;

  InventoryAllocationTopology(Topology topology, Map<String, Integer> numaById) {
    this.topology = topology;
    // Copy without nulls: Map.copyOf rejects them, and a null value means "unknown" anyway.
    Map<String, Integer> copy = new HashMap<>();
    numaById.forEach(
        (id, node) -> {
          if (id != null && node != null && node >= 0) {
            copy.put(id, node);
          }
        });
    this.numaById = Map.copyOf(copy);
  }

  @Override
  public int nvlinks(String physicalA, String physicalB) {
    return physicalA.equals(physicalB) ? 0 : topology.nvlinks(physicalA, physicalB);
  }

  @Override
  public PcieLevel level(String physicalA, String physicalB) {
    return physicalA.equals(physicalB) ? PcieLevel.INTERNAL : topology.level(physicalA, physicalB);
  }

  @Override
  public int numaNode(String physicalId) {
    return numaById.getOrDefault(physicalId, -1);
  }

  @Override
  public String toString() {
    return "AllocationTopology[" + topology + ", numa=" + numaById + "]";
  }
}
