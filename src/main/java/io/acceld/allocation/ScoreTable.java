package io.acceld.allocation;

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
 * <p>Cost: 12·n² bytes per request, where n is the number of physical devices offered (replicas
 * share a unit), copied from the inventory's {@link ScoreModel}; the tables are what keeps the
 * per-subset work to array reads.
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

  /** Built by {@link ScoreModel#table}; the arrays are row-major n*n and become the table's. */
  ScoreTable(int n, int[] nvlinks, int[] pcie, int[] numa, int[] spare) {
    this.n = n;
    this.nvlinks = nvlinks;
    this.pcie = pcie;
    this.numa = numa;
    this.spare = spare;
  }

  int size() {
    return n;
  }

  int nvlinks(int i, int j) {
    return nvlinks[i * n + j];
  }

  int pcie(int i, int j) {
    return pcie[i * n + j];
  }

  int numa(int i, int j) {
    return numa[i * n + j];
  }

  int spare(int i) {
    return spare[i];
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
