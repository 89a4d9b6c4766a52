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
 *
 * <p>The allocator, and with it the {@link ScoreModel} of every pair's weight, is built once per
 * inventory and kept while snapshots only differ in what the score does not read: a health flip or
 * a telemetry change makes a new snapshot with the same devices, NUMA nodes and topology, and must
 * not cost the next request a rebuild.
 */
public final class TopologyAwareChooser implements DeviceChooser {
  /** The allocator of the last snapshot asked about: snapshots change rarely, requests burst. */
  private record Cached(Inventory inventory, PreferredAllocator allocator) {
    /** Whether {@code other} scores exactly as {@link #inventory} does. */
    boolean scoresAlike(Inventory other) {
      if (other == inventory) {
        return true;
      }
      List<Device> mine = inventory.devices();
      List<Device> theirs = other.devices();
      if (mine.size() != theirs.size()) {
        return false;
      }
      for (int i = 0; i < mine.size(); i++) {
        if (!mine.get(i).id().equals(theirs.get(i).id())
            || mine.get(i).numaNode() != theirs.get(i).numaNode()) {
          return false;
        }
      }
      return other.topology() == inventory.topology()
          || other.topology().equals(inventory.topology());
    }
  }

  private final AtomicReference<Cached> cached = new AtomicReference<>();

  @Override
  public List<String> choose(
      Inventory inventory, List<String> available, List<String> mustInclude, int size) {
    return allocatorFor(inventory)
        .choose(
            new PreferredAllocator.Request(available, mustInclude, size, ReplicaId::physicalOf));
  }

  // Package-private so a test can see when the model is rebuilt.
  PreferredAllocator allocatorFor(Inventory inventory) {
    Cached c = cached.get();
    if (c != null && c.inventory() == inventory) {
      return c.allocator();
    }
    if (c != null && c.scoresAlike(inventory)) {
      // Re-keyed to the new snapshot, so later requests take the identity check above.
      cached.set(new Cached(inventory, c.allocator()));
      return c.allocator();
    }
    Map<String, Integer> numa = new HashMap<>();
    for (Device d : inventory.devices()) {
      numa.put(d.id(), d.numaNode());
    }
    PreferredAllocator allocator =
        new PreferredAllocator(AllocationTopology.of(inventory.topology(), numa), numa.keySet());
    cached.set(new Cached(inventory, allocator));
    return allocator;
  }
}
