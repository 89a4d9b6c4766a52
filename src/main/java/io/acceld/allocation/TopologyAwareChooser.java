package io.acceld.allocation;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.ReplicaId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * NVLink first, then PCIe closeness, then NUMA, with replicas spread over physical devices (see
 * {@link PreferredAllocator}). Scores physical devices, so replica IDs are read back to their
 * device through {@link ReplicaId}.
 */
public final class TopologyAwareChooser implements DeviceChooser {
  /** The allocator of the last snapshot asked about: snapshots change rarely, requests burst. */
  private record Cached(Inventory inventory, PreferredAllocator allocator) {}

  private final AtomicReference<Cached> cached = new AtomicReference<>();

  @Override
  public List<String> choose(
      Inventory inventory, List<String> available, List<String> mustInclude, int size) {
    return allocatorFor(inventory)
        .choose(
            new PreferredAllocator.Request(available, mustInclude, size, ReplicaId::physicalOf));
  }

  private PreferredAllocator allocatorFor(Inventory inventory) {
    Cached c = cached.get();
    if (c != null && c.inventory() == inventory) {
      return c.allocator();
    }
    Map<String, Integer> numa = new HashMap<>();
    for (Device d : inventory.devices()) {
      numa.put(d.id(), d.numaNode());
    }
    PreferredAllocator allocator =
        new PreferredAllocator(AllocationTopology.of(inventory.topology(), numa));
    cached.set(new Cached(inventory, allocator));
    return allocator;
  }
}
