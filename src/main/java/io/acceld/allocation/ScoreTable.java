package io.acceld.allocation;

import java.util.List;

/**
 * One request's objective, precomputed over its candidate units (indices 0..n-1) so that the
 * searches work on flat int arrays and never hash a string or allocate per subset.
 *
 * <p>The objective of a set is a vector of {@link #WIDTH} sums compared lexicographically, higher
 * is better: the three {@link SetScore} components over the set's pairs, then {@link #SPARE}, a sum
 * of per-unit weights (available replicas of the device, so less-loaded GPUs win remaining ties).
 * Vectors live in {@code long[]} slices of length {@link #WIDTH} at a given offset; the static
 * helpers below are the only arithmetic on them.
 *
 * <p>Cost: n(n-1)/2 topology queries and 12·n² bytes per request, where n is the number of physical
 * devices offered (replicas share a unit). That is tens on a real node; the tables are what keeps
 * the per-subset work to array reads.
 */
final class ScoreTable {
  static final int NVLINKS = 0;
  static final int PCIE = 1;
  static final int NUMA = 2;
  static final int SPARE = 3;
  static final int WIDTH = 4;

  private final int n;
  // Row-major n*n, symmetric, zero diagonal: a unit has no pair with itself.
  private final int[] nvlinks;
  private final int[] pcie;
  private final int[] numa;
  private final int[] spare;

  private ScoreTable(int n, int[] nvlinks, int[] pcie, int[] numa, int[] spare) {
    this.n = n;
    this.nvlinks = nvlinks;
    this.pcie = pcie;
    this.numa = numa;
    this.spare = spare;
  }

  /**
   * Queries the topology once per unordered pair (lower index first, so an asymmetric topology
   * still gives one deterministic answer).
   *
   * @param physicalIds the physical device of each unit, all distinct
   * @param spare the per-unit tie-break weight, same length
   */
  static ScoreTable build(List<String> physicalIds, int[] spare, AllocationTopology topology) {
    int n = physicalIds.size();
    int[] nv = new int[n * n];
    int[] pc = new int[n * n];
    int[] nu = new int[n * n];
    int[] node = new int[n];
    for (int i = 0; i < n; i++) {
      node[i] = topology.numaNode(physicalIds.get(i));
    }
    for (int i = 0; i < n; i++) {
      String a = physicalIds.get(i);
      for (int j = i + 1; j < n; j++) {
        String b = physicalIds.get(j);
        int links = SetScore.nvlinkCount(topology.nvlinks(a, b));
        int close = SetScore.pcieCloseness(topology.level(a, b));
        int same = SetScore.sameNuma(node[i], node[j]);
        nv[i * n + j] = links;
        nv[j * n + i] = links;
        pc[i * n + j] = close;
        pc[j * n + i] = close;
        nu[i * n + j] = same;
        nu[j * n + i] = same;
      }
    }
    return new ScoreTable(n, nv, pc, nu, spare.clone());
  }

  int size() {
    return n;
  }

  /** {@code acc += pair(i, j)}; adds nothing for {@code i == j}. */
  void addPair(long[] acc, int off, int i, int j) {
    int k = i * n + j;
    acc[off + NVLINKS] += nvlinks[k];
    acc[off + PCIE] += pcie[k];
    acc[off + NUMA] += numa[k];
  }

  /** {@code acc -= pair(i, j)}. */
  void subtractPair(long[] acc, int off, int i, int j) {
    int k = i * n + j;
    acc[off + NVLINKS] -= nvlinks[k];
    acc[off + PCIE] -= pcie[k];
    acc[off + NUMA] -= numa[k];
  }

  /** {@code acc += unit weight of i}. */
  void addUnit(long[] acc, int off, int i) {
    acc[off + SPARE] += spare[i];
  }

  /** Lexicographic comparison of two objective vectors; positive when {@code a} is better. */
  static int compare(long[] a, int aOff, long[] b, int bOff) {
    for (int c = 0; c < WIDTH; c++) {
      int byComponent = Long.compare(a[aOff + c], b[bOff + c]);
      if (byComponent != 0) {
        return byComponent;
      }
    }
    return 0;
  }

  /** {@code dst = a + b}, element-wise. */
  static void sum(long[] dst, int dOff, long[] a, int aOff, long[] b, int bOff) {
    for (int c = 0; c < WIDTH; c++) {
      dst[dOff + c] = a[aOff + c] + b[bOff + c];
    }
  }

  /** {@code dst = src}. */
  static void copy(long[] dst, int dOff, long[] src, int sOff) {
    System.arraycopy(src, sOff, dst, dOff, WIDTH);
  }

  /** Lexicographic comparison of two ascending index arrays: negative when {@code a} is first. */
  static int compareIndices(int[] a, int[] b) {
    int common = Math.min(a.length, b.length);
    for (int i = 0; i < common; i++) {
      if (a[i] != b[i]) {
        return Integer.compare(a[i], b[i]);
      }
    }
    return Integer.compare(a.length, b.length);
  }
}
