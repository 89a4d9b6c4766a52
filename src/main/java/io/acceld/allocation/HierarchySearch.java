package io.acceld.allocation;

import java.util.Arrays;

/**
 * The exact search for nodes whose pair weights form a hierarchy, which is what a node without
 * usable NVLink islands has: PCIe cards (no NVLink), or one NVSwitch fabric where every pair has
 * the same link count. There a pair's weight depends only on where the two devices meet in the
 * PCIe/NUMA tree, every device looks the same to all the devices of another subtree, and {@link
 * IslandSearch}'s bound, which has no islands to cut by, spends its whole budget on sets that only
 * differ by such symmetric swaps. Nodes that are not hierarchical go to {@code otherwise}.
 *
 * <h2>Verified, not assumed</h2>
 *
 * The tree is read off the request's own {@link ScalarObjective} weights: a maximum spanning tree
 * of the pair weights (dense Prim, O(n²)), whose edges, heaviest first, merge clusters as single
 * linkage does. When two clusters A and B merge over an edge of weight v, <em>every</em> pair
 * across them is checked to weigh exactly v (each pair is checked once, at the merge that joins it:
 * n(n−1)/2 checks in all). If all pass, every pair weighs what the merge tree says, so the value
 * the dynamic programme below gives a set is the set's true objective; if one fails, the node is
 * not hierarchical and the search says so before it has chosen anything.
 *
 * <h2>The dynamic programme</h2>
 *
 * Each cluster keeps, for every count t up to the request's size, its best t units: their objective
 * (unit weights and the pairs inside) and, for the tie-break, their bit mask. A merge over weight v
 * combines counts j and t as {@code A[j] + B[t] + v·j·t}, the j·t new pairs all weighing v: a
 * knapsack over the two clusters, O(size²) at most, O(n·size) over the whole tree. Fixed units are
 * leaves that cannot be left out.
 *
 * <p>The tie-break (among equal objectives, the smallest ascending index list) is part of what is
 * maximised: for sets of one size, the lexicographically smaller list is the one holding the lowest
 * unit of the two sets' symmetric difference, i.e. the larger number when unit u is worth
 * 2^(n−1−u). That number is a sum over units, like the objective, so (objective, mask) compared in
 * that order is a separable objective and the programme is exact for it too: the answer is the same
 * set {@link ExactSearch} enumerates its way to.
 *
 * <p>Cost: O(n²) to build and verify plus O(n·size) for the programme, with (size+1)·⌈n/64⌉ longs
 * of masks per cluster; no budget is needed.
 */
final class HierarchySearch implements SubsetSearch {
  private final SubsetSearch otherwise;

  HierarchySearch() {
    this(new IslandSearch());
  }

  /**
   * @param otherwise asked when the node is not hierarchical (or the objective cannot be packed)
   */
  HierarchySearch(SubsetSearch otherwise) {
    this.otherwise = otherwise;
  }

  @Override
  public int[] best(ScoreTable table, int[] fixed, int size) {
    int[] found = solve(table, fixed, size);
    return found != null ? found : otherwise.best(table, fixed, size);
  }

  /**
   * The best set by {@link SubsetSearch}'s definition, or {@code null} when the table's pair
   * weights are not hierarchical (or its objective too large to pack), so this search cannot tell.
   */
  static int[] solve(ScoreTable table, int[] fixed, int size) {
    int n = table.size();
    if (size <= fixed.length) {
      return fixed.clone();
    }
    if (size >= n) {
      int[] all = new int[n];
      Arrays.setAll(all, u -> u);
      return all;
    }
    ScalarObjective objective = ScalarObjective.of(table, size);
    if (objective == null) {
      return null;
    }
    return new Run(objective, fixed, size).solve();
  }

  /** One request's merge tree and tables. */
  private static final class Run {
    private final ScalarObjective objective;
    private final int n;
    private final int size;
    private final int words;
    private final boolean[] isFixed;
    // Clusters are named by a representative unit (union-find); members as linked lists.
    private final int[] root;
    private final int[] next;
    private final int[] last;
    // Per cluster representative: best objective by count (Long.MIN_VALUE: no such set) and the
    // masks of those sets, count c at [c * words, (c + 1) * words).
    private final long[][] value;
    private final long[][] mask;
    private final long[] scratch;
    // The maximum spanning tree: each unit but 0 hangs from treeParent by an edge of treeWeight.
    private final int[] treeParent;
    private final long[] treeWeight;

    Run(ScalarObjective objective, int[] fixed, int size) {
      this.objective = objective;
      this.n = objective.size();
      this.size = size;
      this.words = (n + 63) / 64;
      this.isFixed = new boolean[n];
      for (int f : fixed) {
        isFixed[f] = true;
      }
      this.root = new int[n];
      this.next = new int[n];
      this.last = new int[n];
      this.value = new long[n][];
      this.mask = new long[n][];
      this.scratch = new long[words];
      this.treeParent = new int[n];
      this.treeWeight = new long[n];
    }

    int[] solve() {
      int[] edges = spanningTreeHeaviestFirst();
      for (int u = 0; u < n; u++) {
        root[u] = u;
        next[u] = -1;
        last[u] = u;
        value[u] = new long[] {isFixed[u] ? Long.MIN_VALUE : 0, objective.unit(u)};
        mask[u] = new long[2 * words];
        mask[u][words + u / 64] = bit(u);
      }
      for (int v : edges) {
        if (!merge(find(v), find(treeParent[v]), treeWeight[v])) {
          return null;
        }
      }
      int top = find(0);
      int[] set = new int[size];
      int at = 0;
      int off = size * words;
      for (int u = 0; u < n; u++) {
        if ((mask[top][off + u / 64] & bit(u)) != 0) {
          set[at++] = u;
        }
      }
      return at == size ? set : null; // at < size cannot happen: fixed.length < size < n
    }

    /**
     * Maximum spanning tree by dense Prim from unit 0; returns the non-root vertices ordered by
     * their tree edge's weight, heaviest first (ties by index), with the edges in {@link
     * #treeParent} and {@link #treeWeight}. Single linkage merges along these edges in that order.
     */
    private int[] spanningTreeHeaviestFirst() {
      boolean[] inTree = new boolean[n];
      Arrays.fill(treeWeight, Long.MIN_VALUE);
      inTree[0] = true;
      for (int v = 1; v < n; v++) {
        treeWeight[v] = objective.pair(0, v);
        treeParent[v] = 0;
      }
      for (int added = 1; added < n; added++) {
        int pick = -1;
        for (int v = 0; v < n; v++) {
          if (!inTree[v] && (pick < 0 || treeWeight[v] > treeWeight[pick])) {
            pick = v;
          }
        }
        inTree[pick] = true;
        for (int v = 0; v < n; v++) {
          if (!inTree[v] && objective.pair(pick, v) > treeWeight[v]) {
            treeWeight[v] = objective.pair(pick, v);
            treeParent[v] = pick;
          }
        }
      }
      Integer[] order = new Integer[n - 1];
      for (int v = 1; v < n; v++) {
        order[v - 1] = v;
      }
      Arrays.sort(order, (x, y) -> Long.compare(treeWeight[y], treeWeight[x]));
      int[] edges = new int[n - 1];
      for (int i = 0; i < edges.length; i++) {
        edges[i] = order[i];
      }
      return edges;
    }

    /**
     * Joins clusters {@code a} and {@code b} over a tree edge of {@code weight}, if every pair
     * across them weighs exactly that; returns whether it did.
     */
    private boolean merge(int a, int b, long weight) {
      for (int x = a; x >= 0; x = next[x]) {
        for (int y = b; y >= 0; y = next[y]) {
          if (objective.pair(x, y) != weight) {
            return false;
          }
        }
      }
      long[] va = value[a];
      long[] vb = value[b];
      long[] ma = mask[a];
      long[] mb = mask[b];
      int cap = Math.min(size, va.length - 1 + vb.length - 1);
      long[] out = new long[cap + 1];
      long[] outMask = new long[(cap + 1) * words];
      Arrays.fill(out, Long.MIN_VALUE);
      for (int j = 0; j < va.length; j++) {
        if (va[j] == Long.MIN_VALUE) {
          continue;
        }
        for (int t = 0; t < vb.length && j + t <= cap; t++) {
          if (vb[t] == Long.MIN_VALUE) {
            continue;
          }
          long candidate = va[j] + vb[t] + weight * j * t;
          int s = j + t;
          if (candidate < out[s]) {
            continue;
          }
          for (int w = 0; w < words; w++) {
            scratch[w] = ma[j * words + w] | mb[t * words + w];
          }
          if (candidate > out[s] || earlier(scratch, outMask, s * words)) {
            out[s] = candidate;
            System.arraycopy(scratch, 0, outMask, s * words, words);
          }
        }
      }
      // b joins a: a stays the representative, b's members follow a's.
      root[b] = a;
      next[last[a]] = b;
      last[a] = last[b];
      value[a] = out;
      mask[a] = outMask;
      value[b] = null;
      mask[b] = null;
      return true;
    }

    /**
     * Whether set {@code m} sorts before the set at {@code other[off..]}: it holds the lowest unit
     * in which they differ.
     */
    private boolean earlier(long[] m, long[] other, int off) {
      for (int w = 0; w < words; w++) {
        long differ = m[w] ^ other[off + w];
        if (differ != 0) {
          return (m[w] & Long.lowestOneBit(differ)) != 0;
        }
      }
      return false;
    }

    private int find(int u) {
      while (root[u] != u) {
        root[u] = root[root[u]];
        u = root[u];
      }
      return u;
    }

    private static long bit(int u) {
      return 1L << (u % 64);
    }
  }
}
