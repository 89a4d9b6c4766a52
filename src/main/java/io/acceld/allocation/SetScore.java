package io.acceld.allocation;

import io.acceld.inventory.PcieLevel;
import java.util.List;

/**
 * How well connected a set of physical devices is. Every component is a sum over the set's
 * unordered pairs, and sets compare lexicographically, higher is better:
 *
 * <ol>
 *   <li>{@code nvlinks}: total NVLinks. NVLink bandwidth dwarfs PCIe, so it decides first.
 *   <li>{@code pcieCloseness}: sum of {@code UNKNOWN - level} in NVML units, so a pair behind one
 *       switch (SINGLE) counts 50, across sockets (SYSTEM) 10, unknown 0.
 *   <li>{@code numaPairs}: pairs whose devices sit on the same <em>known</em> NUMA node.
 * </ol>
 *
 * <p>Why NUMA is "same-node pairs" and not "fewest distinct NUMA nodes": (a) the pair count is in
 * the same unit as the other two components, so the whole score stays a sum of pair weights, which
 * is what lets the searches score incrementally and compute exact marginal gains; (b) it measures
 * what costs bandwidth, the device pairs whose peer traffic crosses the socket interconnect; (c)
 * where the node count ties it still discriminates: on two nodes, 3+1 beats 2+2, which leaves a
 * whole same-node pair for the next pod instead of two stragglers; (d) an unknown node (-1) simply
 * never pairs, with no special case. When the choice is otherwise free, filling the fullest nodes
 * first maximises the pair count and also minimises the node count, so the two rules only differ on
 * ties left by NVLink and PCIe. The kubelet's topology manager already narrows {@code available} to
 * NUMA-aligned devices when it has a policy (device plugin reference §6.2), so the node-count
 * concern is handled upstream.
 *
 * <p>Components are {@code long} because they are sums over up to n(n-1)/2 pairs.
 */
public record SetScore(long nvlinks, long pcieCloseness, long numaPairs)
    implements Comparable<SetScore> {

  public static final SetScore ZERO = new SetScore(0, 0, 0);

  /** Closeness of one pair: {@code UNKNOWN.nvmlValue() - level.nvmlValue()}; null is unknown. */
  public static int pcieCloseness(PcieLevel level) {
    PcieLevel known = level == null ? PcieLevel.UNKNOWN : level;
    return PcieLevel.UNKNOWN.nvmlValue() - known.nvmlValue();
  }

  /** 1 when both NUMA nodes are known (non-negative) and equal, else 0. */
  public static int sameNuma(int nodeA, int nodeB) {
    return nodeA >= 0 && nodeA == nodeB ? 1 : 0;
  }

  /** NVLink count as scored: negative counts from a faulty probe are taken as none. */
  public static int nvlinkCount(int nvlinks) {
    return Math.max(0, nvlinks);
  }

  /** The score of one unordered pair. */
  public static SetScore pair(String physicalA, String physicalB, AllocationTopology topology) {
    return new SetScore(
        nvlinkCount(topology.nvlinks(physicalA, physicalB)),
        pcieCloseness(topology.level(physicalA, physicalB)),
        sameNuma(topology.numaNode(physicalA), topology.numaNode(physicalB)));
  }

  /** The score of a set of distinct physical devices: the sum over its unordered pairs. */
  public static SetScore of(List<String> physicalIds, AllocationTopology topology) {
    SetScore total = ZERO;
    for (int i = 0; i < physicalIds.size(); i++) {
      for (int j = i + 1; j < physicalIds.size(); j++) {
        total = total.plus(pair(physicalIds.get(i), physicalIds.get(j), topology));
      }
    }
    return total;
  }

  public SetScore plus(SetScore other) {
    return new SetScore(
        nvlinks + other.nvlinks, pcieCloseness + other.pcieCloseness, numaPairs + other.numaPairs);
  }

  /** Lexicographic: NVLinks, then PCIe closeness, then NUMA pairs. Greater is better. */
  @Override
  public int compareTo(SetScore other) {
    int byNvlinks = Long.compare(nvlinks, other.nvlinks);
    if (byNvlinks != 0) {
      return byNvlinks;
    }
    int byPcie = Long.compare(pcieCloseness, other.pcieCloseness);
    return byPcie != 0 ? byPcie : Long.compare(numaPairs, other.numaPairs);
  }
}
