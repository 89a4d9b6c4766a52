package io.acceld.allocation;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The pair weights of every physical device a node has, asked of the {@link AllocationTopology}
 * once, so a request only copies the rows of the devices it offers instead of querying the topology
 * for every pair again. Built once per inventory (see {@link TopologyAwareChooser}); a request for
 * an ID the model was not built with (a caller that passes its own IDs, or a device that appeared
 * since) still gets an answer: those pairs are asked of the topology at request time.
 *
 * <p>Cost: n(n-1)/2 topology queries and 12·n² bytes once per inventory, where n is the number of
 * physical devices (64 devices: 2,016 queries, 48 KiB).
 */
final class ScoreModel {
  private final AllocationTopology topology;
  private final Map<String, Integer> indexById;
  private final int n;
  // Row-major n*n, symmetric, zero diagonal, in the units of ScoreTable.
  private final int[] nvlinks;
  private final int[] pcie;
  private final int[] numa;
  private final int[] node;

  private ScoreModel(AllocationTopology topology, List<String> physicalIds) {
    this.topology = topology;
    this.n = physicalIds.size();
    this.indexById = new HashMap<>();
    for (int i = 0; i < n; i++) {
      indexById.put(physicalIds.get(i), i);
    }
    this.nvlinks = new int[n * n];
    this.pcie = new int[n * n];
    this.numa = new int[n * n];
    this.node = new int[n];
    for (int i = 0; i < n; i++) {
      node[i] = topology.numaNode(physicalIds.get(i));
    }
    for (int i = 0; i < n; i++) {
      for (int j = i + 1; j < n; j++) {
        // Lower index first, as ScoreTable always asked: one answer even for an asymmetric probe.
        set(i, j, physicalIds.get(i), physicalIds.get(j));
      }
    }
  }

  /** A model that knows no device in advance: every request asks the topology for its pairs. */
  static ScoreModel of(AllocationTopology topology) {
    return new ScoreModel(topology, List.of());
  }

  /** A model of {@code physicalIds} (duplicates and nulls ignored). */
  static ScoreModel of(AllocationTopology topology, Collection<String> physicalIds) {
    LinkedHashSet<String> distinct = new LinkedHashSet<>();
    for (String id : physicalIds) {
      if (id != null) {
        distinct.add(id);
      }
    }
    return new ScoreModel(topology, List.copyOf(distinct));
  }

  private void set(int i, int j, String a, String b) {
    int links = SetScore.nvlinkCount(topology.nvlinks(a, b));
    int close = SetScore.pcieCloseness(topology.level(a, b));
    int same = SetScore.sameNuma(node[i], node[j]);
    nvlinks[i * n + j] = links;
    nvlinks[j * n + i] = links;
    pcie[i * n + j] = close;
    pcie[j * n + i] = close;
    numa[i * n + j] = same;
    numa[j * n + i] = same;
  }

  /**
   * One request's table over {@code physicalIds} (distinct), with {@code spare} as the per-unit
   * tie-break weight.
   */
  ScoreTable table(List<String> physicalIds, int[] spare) {
    int m = physicalIds.size();
    int[] at = new int[m];
    int[] nodes = new int[m];
    for (int i = 0; i < m; i++) {
      Integer known = indexById.get(physicalIds.get(i));
      at[i] = known == null ? -1 : known;
      nodes[i] = known == null ? topology.numaNode(physicalIds.get(i)) : node[known];
    }
    int[] nv = new int[m * m];
    int[] pc = new int[m * m];
    int[] nu = new int[m * m];
    for (int i = 0; i < m; i++) {
      for (int j = i + 1; j < m; j++) {
        int links;
        int close;
        int same;
        if (at[i] >= 0 && at[j] >= 0) {
          int k = at[i] * n + at[j];
          links = nvlinks[k];
          close = pcie[k];
          same = numa[k];
        } else {
          String a = physicalIds.get(i);
          String b = physicalIds.get(j);
          links = SetScore.nvlinkCount(topology.nvlinks(a, b));
          close = SetScore.pcieCloseness(topology.level(a, b));
          same = SetScore.sameNuma(nodes[i], nodes[j]);
        }
        nv[i * m + j] = links;
        nv[j * m + i] = links;
        pc[i * m + j] = close;
        pc[j * m + i] = close;
        nu[i * m + j] = same;
        nu[j * m + i] = same;
      }
    }
    return new ScoreTable(m, nv, pc, nu, spare.clone());
  }
}
