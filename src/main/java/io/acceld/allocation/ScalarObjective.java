package io.acceld.allocation;

/**
 * A {@link ScoreTable}'s objective for sets of one size as a single {@code long} per pair and per
 * unit, so that a search can add, compare and bound with plain arithmetic. The four components are
 * packed as digits of a mixed-radix number, each radix one more than the largest sum that component
 * can reach in a set of {@code size} units:
 *
 * <pre>value = ((nvlinks · R_pcie + pcie) · R_numa + numa) · R_spare + spare</pre>
 *
 * so comparing values is comparing the vectors lexicographically. {@link #of} refuses (returns
 * {@code null}) when even four times the largest value would not fit a {@code long}, which leaves
 * room for the doubled sums {@link IslandSearch}'s bound works in; that only happens with NVLink
 * counts or set sizes far beyond any real node.
 */
final class ScalarObjective {
  /** Closeness of the closest PCIe level: UNKNOWN minus INTERNAL, in NVML units. */
  private static final int MAX_PCIE = 60;

  private final int n;
  private final long[] pair;
  private final long[] unit;
  private final long maxPair;

  private ScalarObjective(int n, long[] pair, long[] unit, long maxPair) {
    this.n = n;
    this.pair = pair;
    this.unit = unit;
    this.maxPair = maxPair;
  }

  /** The packed objective for sets of {@code size} units, or {@code null} if it cannot fit. */
  static ScalarObjective of(ScoreTable table, int size) {
    int n = table.size();
    long pairs = (long) size * (size - 1) / 2;
    long spareSum = 0;
    int maxLinks = 0;
    for (int i = 0; i < n; i++) {
      spareSum += Math.max(0, table.spare(i));
      for (int j = i + 1; j < n; j++) {
        maxLinks = Math.max(maxLinks, table.nvlinks(i, j));
      }
    }
    try {
      long pcieRadix = Math.addExact(Math.multiplyExact(MAX_PCIE, pairs), 1);
      long numaRadix = pairs + 1;
      long spareRadix = Math.addExact(spareSum, 1);
      long maxPair = pack(maxLinks, MAX_PCIE, 1, pcieRadix, numaRadix, spareRadix);
      // The largest doubled bound: every pair at maxPair, counted as size² pairs, plus the spares.
      long square = Math.multiplyExact((long) size, size);
      Math.addExact(
          Math.multiplyExact(Math.multiplyExact(maxPair, square), 4),
          Math.multiplyExact(spareSum, 4));
      long[] pair = new long[n * n];
      long[] unit = new long[n];
      for (int i = 0; i < n; i++) {
        unit[i] = Math.max(0, table.spare(i));
        for (int j = 0; j < n; j++) {
          if (i != j) {
            pair[i * n + j] =
                pack(
                    table.nvlinks(i, j),
                    table.pcie(i, j),
                    table.numa(i, j),
                    pcieRadix,
                    numaRadix,
                    spareRadix);
          }
        }
      }
      return new ScalarObjective(n, pair, unit, maxPair);
    } catch (ArithmeticException tooLarge) {
      return null;
    }
  }

  private static long pack(
      long nvlinks, long pcie, long numa, long pcieRadix, long numaRadix, long spareRadix) {
    long high = Math.addExact(Math.multiplyExact(nvlinks, pcieRadix), pcie);
    return Math.multiplyExact(Math.addExact(Math.multiplyExact(high, numaRadix), numa), spareRadix);
  }

  int size() {
    return n;
  }

  /** The packed weight of the pair; 0 for {@code i == j}. */
  long pair(int i, int j) {
    return pair[i * n + j];
  }

  /** Row {@code i} of the pair weights, for loops that add a unit to every other's gain. */
  long[] pairs() {
    return pair;
  }

  long unit(int i) {
    return unit[i];
  }

  /** No pair weighs more than this. */
  long maxPair() {
    return maxPair;
  }

  /** The packed objective of a set of distinct units. */
  long of(int[] units) {
    long total = 0;
    for (int a = 0; a < units.length; a++) {
      total += unit[units[a]];
      for (int b = a + 1; b < units.length; b++) {
        total += pair(units[a], units[b]);
      }
    }
    return total;
  }
}
