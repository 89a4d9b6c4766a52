package io.acceld.kubelet;

import io.acceld.kubelet.allocation.AllocationTopology;
import io.acceld.kubelet.allocation.PreferredAllocator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * GetPreferredAllocation for a resource view: NVLink first, then PCIe closeness, then NUMA, with
 * replicas spread over physical devices (see {@link PreferredAllocator}). Scores physical devices,
 * so replica IDs are mapped back through the view.
 */
public final class TopologyAwareAllocation implements PreferredAllocation {
  @Override
  public List<String> choose(
      ResourceView view, List<String> available, List<String> mustInclude, int size) {
    Map<String, Integer> numa = new HashMap<>();
    view.devices().forEach(a -> numa.put(a.device().id(), a.device().numaNode()));
    PreferredAllocator allocator =
        new PreferredAllocator(AllocationTopology.of(view.topology(), numa));
    return allocator.choose(
        new PreferredAllocator.Request(
            available,
            mustInclude,
            size,
            id -> view.lookup(id).map(a -> a.device().id()).orElse(null)));
  }
}
