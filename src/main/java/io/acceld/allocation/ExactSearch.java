package io.acceld.allocation;

import java.util.Arrays;

/**
 * Enumerates every set: the fixed units plus each combination of the free ones, scored
 * incrementally. Used while the number of combinations is within {@link #DEFAULT_BUDGET}, which
 * covers every request on a node of up to 16 devices (the worst case, C(16, 8), is 12,870).
 *
 * <p>Combinations are visited in lexicographic index order and only a strictly better objective
 * replaces the incumbent, so the first optimum found is also the tie-break winner.
 */
final class ExactSearch implements SubsetSearch {
  /** Combinations enumerated at most; C(16, 8) = 12,870 fits, C(17, 8) = 24,310 does not. */
  static final long DEFAULT_BUDGET = 20_000;

  /**
   * C(n, k), or {@code cap + 1} as soon as it exceeds {@code cap}, so huge inputs cannot overflow.
   */
  static long combinationsUpTo(int n, int k, long cap) {
    if (k < 0 || k > n) {
      return 0;
    }
    int r = Math.min(k, n - k);
    long c = 1;
    for (int i = 1; i <= r; i++) {
      // c * (n - r + i) / i is exact at every step; stop before it can grow past cap.
      c = c * (n - r + i) / i;
      if (c > cap) {
        return cap + 1;
      }
    }
    return c;
  }

  @Override
  public int[] best(ScoreTable table, int[] fixed, int size) {
    return new Run(table, fixed, size).search();
  }

  /** One search's scratch state, so the search object itself stays stateless. */
  private static final class Run {
    private final ScoreTable table;
    private final int[] fixed;
    private final int[] free;
    private final int pick;
    // fixedGain[c]: objective added by free unit c against the fixed units (plus its own weight).
    private final long[] fixedGain;
    // sums[d]: objective of fixed + chosen[0..d-1].
    private final long[] sums;
    private final int[] chosen;
    private final long[] bestScore = new long[ScoreTable.WIDTH];
    private final int[] bestChosen;
    private boolean found;

    Run(ScoreTable table, int[] fixed, int size) {
      this.table = table;
      this.fixed = fixed;
      int n = table.size();
      boolean[] isFixed = new boolean[n];
      for (int f : fixed) {
        isFixed[f] = true;
      }
      this.free = new int[n - fixed.length];
      int at = 0;
      for (int u = 0; u < n; u++) {
        if (!isFixed[u]) {
          free[at++] = u;
        }
      }
      this.pick = size - fixed.length;
      this.fixedGain = new long[n * ScoreTable.WIDTH];
      for (int c : free) {
        int off = c * ScoreTable.WIDTH;
        table.addUnit(fixedGain, off, c);
        for (int f : fixed) {
          table.addPair(fixedGain, off, f, c);
        }
      }
      this.sums = new long[(pick + 1) * ScoreTable.WIDTH];
      for (int i = 0; i < fixed.length; i++) {
        table.addUnit(sums, 0, fixed[i]);
        for (int j = i + 1; j < fixed.length; j++) {
          table.addPair(sums, 0, fixed[i], fixed[j]);
        }
      }
      this.chosen = new int[pick];
      this.bestChosen = new int[pick];
    }

    int[] search() {
      descend(0, 0);
      int[] result = new int[fixed.length + pick];
      System.arraycopy(fixed, 0, result, 0, fixed.length);
      System.arraycopy(bestChosen, 0, result, fixed.length, pick);
      Arrays.sort(result);
      return result;
    }

    private void descend(int depth, int start) {
      int at = depth * ScoreTable.WIDTH;
      if (depth == pick) {
        if (!found || ScoreTable.compare(sums, at, bestScore, 0) > 0) {
          found = true;
          ScoreTable.copy(bestScore, 0, sums, at);
          System.arraycopy(chosen, 0, bestChosen, 0, pick);
        }
        return;
      }
      int next = at + ScoreTable.WIDTH;
      // Leave room for the remaining picks: the last start position is free.length - remaining.
      for (int p = start, last = free.length - (pick - depth); p <= last; p++) {
        int c = free[p];
        ScoreTable.sum(sums, next, sums, at, fixedGain, c * ScoreTable.WIDTH);
        for (int j = 0; j < depth; j++) {
          table.addPair(sums, next, chosen[j], c);
        }
        chosen[depth] = c;
        descend(depth + 1, p + 1);
      }
    }
  }
}
