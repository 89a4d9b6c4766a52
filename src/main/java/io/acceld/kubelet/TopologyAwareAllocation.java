package io.acceld.kubelet;

import io.acceld.allocation.AllocationTopology;
import io.acceld.allocation.PreferredAllocator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * GetPreferredAllocation for a resource view: NVLink first, then PCIe closeness, then NUMA, with
 * replicas spread over physical devices (see {@link PreferredAllocator}). Scores physical devices,
 * so replica IDs are mapped back through the view.
 */
public final class TopologyAwareAllocation implements PreferredAllocation {
  /** The allocator of the last view asked about: views change rarely, requests come in bursts. */
  private record Cached(ResourceView view, PreferredAllocator allocator) {}

  private final AtomicReference<Cached> cached = new AtomicReference<>();

  @Override
  public List<String> choose(
      ResourceView view, List<String> available, List<String> mustInclude, int size) {
    return allocatorFor(view)
        .choose(
            new PreferredAllocator.Request(
                available,
                mustInclude,
                size,
                id -> view.lookup(id).map(a -> a.device().id()).orElse(null)));
  }

  private PreferredAllocator allocatorFor(ResourceView view) {
    Cached c = cached.get();
    if (c != null && c.view() == view) {
      return c.allocator();
    }
    Map<String, Integer> numa = new HashMap<>();
    view.devices().forEach(a -> numa.put(a.device().id(), a.device().numaNode()));
    PreferredAllocator allocator =
        new PreferredAllocator(AllocationTopology.of(view.topology(), numa));
    cached.set(new Cached(view, allocator));
    return allocator;
  }
}
