package io.acceld.allocation;

import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.Topology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Node layouts the tests share, built through the production adapter. */
final class Nodes {
  private Nodes() {}

  static List<String> ids(String prefix, int count) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(prefix + i);
    }
    return ids;
  }

  /**
   * A DGX-1-like 8-GPU node, gpu0..gpu7: NVLink pairs (0,1)(2,3)(4,5)(6,7) with 6 links, (0,2)
   * (1,3)(4,6)(5,7) with 2; NUMA 0 holds 0-3, NUMA 1 holds 4-7; PCIe NODE within a socket, SYSTEM
   * across.
   */
  static AllocationTopology eightGpu() {
    Topology.Builder links = Topology.builder();
    Map<String, Integer> numa = new HashMap<>();
    for (int i = 0; i < 8; i++) {
      numa.put("gpu" + i, i < 4 ? 0 : 1);
      for (int j = i + 1; j < 8; j++) {
        PcieLevel level = (i < 4) == (j < 4) ? PcieLevel.NODE : PcieLevel.SYSTEM;
        int nvlinks = 0;
        if (j == i + 1 && i % 2 == 0) {
          nvlinks = 6;
        } else if (j == i + 2 && i % 4 < 2) {
          nvlinks = 2;
        }
        links.put("gpu" + i, "gpu" + j, level, nvlinks);
      }
    }
    return AllocationTopology.of(links.build(), numa);
  }

  /** IDs {@code gpu00..} zero-padded to two digits so string order is numeric order. */
  static String padded(int i) {
    return String.format("gpu%02d", i);
  }

  /**
   * {@code count} GPUs: NVLink islands of 8 where every pair has 4 links, PCIe switches of 2
   * (SINGLE), NODE within a NUMA node, SYSTEM across; the first half on NUMA 0.
   */
  static AllocationTopology islands(int count) {
    Topology.Builder links = Topology.builder();
    Map<String, Integer> numa = new HashMap<>();
    for (int i = 0; i < count; i++) {
      numa.put(padded(i), i < count / 2 ? 0 : 1);
      for (int j = i + 1; j < count; j++) {
        PcieLevel level;
        if (i / 2 == j / 2) {
          level = PcieLevel.SINGLE;
        } else if ((i < count / 2) == (j < count / 2)) {
          level = PcieLevel.NODE;
        } else {
          level = PcieLevel.SYSTEM;
        }
        links.put(padded(i), padded(j), level, i / 8 == j / 8 ? 4 : 0);
      }
    }
    return AllocationTopology.of(links.build(), numa);
  }

  static List<String> paddedIds(int count) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(padded(i));
    }
    return ids;
  }
}
