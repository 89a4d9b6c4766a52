package io.acceld.allocation;

import java.util.Arrays;

/**
 * A good answer for requests too large to enumerate, where {@link IslandSearch} ran out of its
 * budget (or the objective is too large to pack). Not guaranteed optimal, but deterministic: O(n² ·
 * size) per seed for the usual handful of swaps, about a millisecond for 64 devices.
 *
 * <ol>
 *   <li>Seeds: each unit alone, or, with fixed units, the fixed units plus each free unit. Trying
 *       every seed is what rescues greedy from a poor first pick; for islands of NVLinked GPUs it
 *       means every island is tried.
 *   <li>Greedy: add the unit with the best marginal objective (the objective is a sum of pair and
 *       unit weights, so the marginal gain is exact), lowest index on ties.
 *   <li>1-swap local search: exchange one non-fixed member for one outsider while that strictly
 *       improves the objective, or keeps it equal and makes the ID list smaller (so ties resolve
 *       the same way as the exact search's tie-break would, where it can see them). At most {@link
 *       #MAX_SWAPS} swaps per seed, a bound on time only: every swap strictly improves (objective,
 *       ID order), so the loop ends on its own.
 * </ol>
 *
 * The best result over all seeds wins, ties going to the smallest ID list.
 *
 * <p>All per-request state lives in one {@link Run}, allocated once; the seeds reuse its arrays.
 */
final class GreedySwapSearch implements SubsetSearch {
  static final int MAX_SWAPS = 64;

  @Override
  public int[] best(ScoreTable table, int[] fixed, int size) {
    if (size <= fixed.length) {
      return fixed.clone();
    }
    return new Run(table, fixed, size).search();
  }

  private static final class Run {
    private static final int W = ScoreTable.WIDTH;

    private final ScoreTable table;
    private final int n;
    private final int[] fixed;
    private final int size;
    private final boolean[] isFixed;
    private final boolean[] inSet;
    // gain[x]: objective x contributes together with the current members (x's own weight plus
    // its pairs with every member other than itself). For an outsider that is the marginal gain
    // of adding it, for a member the loss of removing it.
    private final long[] gain;
    private final long[] score = new long[W];
    private int count;

    private final long[] delta = new long[W];
    private final long[] bestDelta = new long[W];
    private final long[] zero = new long[W];
    private final int[] members;
    private final long[] bestScore = new long[W];
    private final int[] bestMembers;
    private boolean found;

    Run(ScoreTable table, int[] fixed, int size) {
      this.table = table;
      this.n = table.size();
      this.fixed = fixed;
      this.size = size;
      this.isFixed = new boolean[n];
      for (int f : fixed) {
        isFixed[f] = true;
      }
      this.inSet = new boolean[n];
      this.gain = new long[n * W];
      this.members = new int[size];
      this.bestMembers = new int[size];
    }

    int[] search() {
      for (int seed = 0; seed < n; seed++) {
        if (isFixed[seed]) {
          continue;
        }
        reset();
        for (int f : fixed) {
          add(f);
        }
        add(seed);
        fillGreedily();
        improveBySwaps();
        keepIfBest();
      }
      return bestMembers.clone();
    }

    private void reset() {
      Arrays.fill(inSet, false);
      Arrays.fill(gain, 0);
      for (int x = 0; x < n; x++) {
        table.addUnit(gain, x * W, x);
      }
      Arrays.fill(score, 0);
      count = 0;
    }

    private void add(int x) {
      for (int c = 0; c < W; c++) {
        score[c] += gain[x * W + c];
      }
      inSet[x] = true;
      count++;
      for (int y = 0; y < n; y++) {
        table.addPair(gain, y * W, x, y);
      }
    }

    private void remove(int x) {
      inSet[x] = false;
      count--;
      for (int y = 0; y < n; y++) {
        table.subtractPair(gain, y * W, x, y);
      }
      // pair(x, x) is zero, so gain[x] is unchanged by the loop above: still x's contribution.
      for (int c = 0; c < W; c++) {
        score[c] -= gain[x * W + c];
      }
    }

    private void fillGreedily() {
      while (count < size) {
        int pick = -1;
        for (int c = 0; c < n; c++) {
          if (!inSet[c] && (pick < 0 || ScoreTable.compare(gain, c * W, gain, pick * W) > 0)) {
            pick = c;
          }
        }
        add(pick);
      }
    }

    private void improveBySwaps() {
      for (int swaps = 0; swaps < MAX_SWAPS; swaps++) {
        int bestOut = -1;
        int bestIn = -1;
        for (int out = 0; out < n; out++) {
          if (!inSet[out] || isFixed[out]) {
            continue;
          }
          for (int in = 0; in < n; in++) {
            if (inSet[in]) {
              continue;
            }
            // Swapping out for in: lose out's contribution, gain in's, but in's gain counted its
            // pair with out, which is leaving.
            for (int c = 0; c < W; c++) {
              delta[c] = gain[in * W + c] - gain[out * W + c];
            }
            table.subtractPair(delta, 0, out, in);
            int vsZero = ScoreTable.compare(delta, 0, zero, 0);
            boolean acceptable = vsZero > 0 || (vsZero == 0 && in < out);
            if (acceptable && (bestOut < 0 || ScoreTable.compare(delta, 0, bestDelta, 0) > 0)) {
              bestOut = out;
              bestIn = in;
              ScoreTable.copy(bestDelta, 0, delta, 0);
            }
          }
        }
        if (bestOut < 0) {
          return;
        }
        remove(bestOut);
        add(bestIn);
      }
    }

    private void keepIfBest() {
      int at = 0;
      for (int x = 0; x < n; x++) {
        if (inSet[x]) {
          members[at++] = x;
        }
      }
      int byScore = ScoreTable.compare(score, 0, bestScore, 0);
      if (!found
          || byScore > 0
          || (byScore == 0 && ScoreTable.compareIndices(members, bestMembers) < 0)) {
        found = true;
        ScoreTable.copy(bestScore, 0, score, 0);
        System.arraycopy(members, 0, bestMembers, 0, size);
      }
    }
  }
}
