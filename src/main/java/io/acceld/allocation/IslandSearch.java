package io.acceld.allocation;

import java.util.Arrays;

/**
 * The exact search for requests too large to enumerate: a branch and bound over units in index
 * order, with a bound built from the node's NVLink islands, started from {@link GreedySwapSearch}'s
 * answer. Within its work budget ({@link #DEFAULT_NODE_BUDGET} search nodes) the answer is the
 * optimum and the tie-break winner, exactly as {@link ExactSearch} defines them; a search that runs
 * out of budget answers the best set it has seen, never worse than the greedy one. The budget is
 * counted in nodes, not time, so the same request always gets the same answer.
 *
 * <h2>The bound</h2>
 *
 * Objectives are {@link ScalarObjective} values. A search node has chosen a set S (the fixed units
 * and the units it decided to take) and must pick r more from the candidates, the free units after
 * the last decided index. Candidates fall into islands: connected components of the NVLink graph
 * among the free units, which on NVLink nodes are cliques or near-cliques (an NVSwitch tray, a
 * hybrid cube mesh). Every pair across islands has no NVLinks, and weighs at most M, the heaviest
 * such pair among the candidates. For a unit c of island a, gain(c) is its own weight plus its
 * pairs with S, and H(c, j) the sum of its j heaviest pairs with other candidates of its island.
 * Any completion R taking t_a units from island a then satisfies
 *
 * <pre>2·value(R) ≤ Σ_a [ B_a(t_a) − M·t_a² ] + M·r²,  B_a(t) = top t of { 2·gain(c) + H(c, t−1) }
 * </pre>
 *
 * (each unit is credited its t_a − 1 best island partners; the r² − Σ t_a² ordered pairs across
 * islands at M each). Maximising the right side over Σ t_a = r is a knapsack over islands, solved
 * exactly by dynamic programming in O(r · candidates). On a clique island B_a is exact in the
 * NVLink digit, so a node is cut as soon as the NVLinks it can still reach fall short; what is left
 * to search are the sets that tie on NVLinks, and there the same bound, on PCIe and NUMA, cuts
 * most.
 *
 * <p>Nodes are visited in index order, taking a unit before leaving it out, which visits sets in
 * lexicographic order: a node is also cut when its bound only ties the best set and its smallest
 * completion sorts after it.
 */
final class IslandSearch implements SubsetSearch {
  /**
   * Search nodes at most per request: about 1 ms at 64 devices on the development machine (see
   * BENCHMARKS.md), far more than any island topology measured there needed.
   */
  static final long DEFAULT_NODE_BUDGET = 5_000;

  /** The answer and whether the search finished within its budget, so it is proven optimal. */
  record Outcome(int[] units, boolean proven, long nodes) {}

  private final SubsetSearch seed;
  private final long nodeBudget;

  IslandSearch() {
    this(new GreedySwapSearch(), DEFAULT_NODE_BUDGET);
  }

  IslandSearch(SubsetSearch seed, long nodeBudget) {
    this.seed = seed;
    this.nodeBudget = nodeBudget;
  }

  @Override
  public int[] best(ScoreTable table, int[] fixed, int size) {
    return search(table, fixed, size).units();
  }

  Outcome search(ScoreTable table, int[] fixed, int size) {
    int[] incumbent = seed.best(table, fixed, size);
    if (size <= fixed.length || size >= table.size()) {
      return new Outcome(incumbent, true, 0);
    }
    ScalarObjective objective = ScalarObjective.of(table, size);
    if (objective == null) {
      return new Outcome(incumbent, false, 0);
    }
    return new Run(table, objective, fixed, size, incumbent, nodeBudget).search();
  }

  /** One search's state. */
  private static final class Run {
    private final ScalarObjective objective;
    private final int n;
    private final int size;
    private final long budget;
    private final boolean[] isFixed;
    private final int[] fixed;
    // island[u]: island of free unit u; islands[a]: its free units, ascending.
    private final int[] island;
    private final int[][] islands;
    // partners[u]: the other free units of u's island, heaviest pair first.
    private final int[][] partners;
    // crossMax[p]: heaviest pair between free units >= p of different islands.
    private final long[] crossMax;
    // freeFrom[p]: free units >= p.
    private final int[] freeFrom;
    // gain[u]: u's own weight plus its pairs with the chosen set.
    private final long[] gain;
    private final int[] chosen;
    private int depth;

    private long bestValue;
    private int[] bestFree;
    private long nodes;
    private boolean outOfBudget;

    // Bound scratch.
    private final long[] dp;
    private final long[] nextDp;
    private final long[] values;
    private final long[][] prefix;

    Run(
        ScoreTable table,
        ScalarObjective objective,
        int[] fixed,
        int size,
        int[] incumbent,
        long budget) {
      this.objective = objective;
      this.n = table.size();
      this.size = size;
      this.budget = budget;
      this.fixed = fixed;
      this.isFixed = new boolean[n];
      for (int f : fixed) {
        isFixed[f] = true;
      }
      this.island = new int[n];
      this.islands = islandsOf(table);
      this.partners = new int[n][];
      for (int[] members : islands) {
        for (int u : members) {
          partners[u] = byWeight(u, members);
        }
      }
      this.crossMax = new long[n + 1];
      this.freeFrom = new int[n + 1];
      for (int p = n - 1; p >= 0; p--) {
        crossMax[p] = crossMax[p + 1];
        freeFrom[p] = freeFrom[p + 1];
        if (isFixed[p]) {
          continue;
        }
        freeFrom[p]++;
        for (int q = p + 1; q < n; q++) {
          if (!isFixed[q] && island[q] != island[p]) {
            crossMax[p] = Math.max(crossMax[p], objective.pair(p, q));
          }
        }
      }
      this.gain = new long[n];
      long start = 0;
      for (int u = 0; u < n; u++) {
        gain[u] = objective.unit(u);
      }
      for (int f : fixed) {
        start += gain[f];
        addToGains(f);
      }
      this.startValue = start;
      this.chosen = new int[size - fixed.length];
      this.bestValue = objective.of(incumbent);
      this.bestFree = freePart(incumbent);
      int r = size - fixed.length;
      this.dp = new long[r + 1];
      this.nextDp = new long[r + 1];
      this.values = new long[n];
      this.prefix = new long[n][];
      for (int u = 0; u < n; u++) {
        prefix[u] = new long[Math.min(r, partners[u] == null ? 0 : partners[u].length) + 1];
      }
    }

    private final long startValue;

    /** Components of the NVLink graph among the free units; sets {@link #island}. */
    private int[][] islandsOf(ScoreTable table) {
      int[] root = new int[n];
      for (int u = 0; u < n; u++) {
        root[u] = u;
      }
      for (int u = 0; u < n; u++) {
        for (int v = u + 1; v < n; v++) {
          if (!isFixed[u] && !isFixed[v] && table.nvlinks(u, v) > 0) {
            root[find(root, u)] = find(root, v);
          }
        }
      }
      int[] idOfRoot = new int[n];
      Arrays.fill(idOfRoot, -1);
      int[] counts = new int[n];
      int count = 0;
      for (int u = 0; u < n; u++) {
        if (isFixed[u]) {
          island[u] = -1;
          continue;
        }
        int r = find(root, u);
        if (idOfRoot[r] < 0) {
          idOfRoot[r] = count++;
        }
        island[u] = idOfRoot[r];
        counts[island[u]]++;
      }
      int[][] result = new int[count][];
      int[] filled = new int[count];
      for (int a = 0; a < count; a++) {
        result[a] = new int[counts[a]];
      }
      for (int u = 0; u < n; u++) {
        if (!isFixed[u]) {
          result[island[u]][filled[island[u]]++] = u;
        }
      }
      return result;
    }

    private static int find(int[] root, int u) {
      while (root[u] != u) {
        root[u] = root[root[u]];
        u = root[u];
      }
      return u;
    }

    private int[] byWeight(int u, int[] members) {
      Integer[] others = new Integer[members.length - 1];
      int at = 0;
      for (int v : members) {
        if (v != u) {
          others[at++] = v;
        }
      }
      Arrays.sort(others, (x, y) -> Long.compare(objective.pair(u, y), objective.pair(u, x)));
      int[] sorted = new int[others.length];
      for (int i = 0; i < sorted.length; i++) {
        sorted[i] = others[i];
      }
      return sorted;
    }

    private int[] freePart(int[] units) {
      return Arrays.stream(units).filter(u -> !isFixed[u]).sorted().toArray();
    }

    private void addToGains(int x) {
      long[] pairs = objective.pairs();
      int row = x * n;
      for (int y = 0; y < n; y++) {
        gain[y] += pairs[row + y];
      }
    }

    private void removeFromGains(int x) {
      long[] pairs = objective.pairs();
      int row = x * n;
      for (int y = 0; y < n; y++) {
        gain[y] -= pairs[row + y];
      }
    }

    Outcome search() {
      descend(0, size - fixed.length, startValue);
      int[] result = new int[size];
      System.arraycopy(fixed, 0, result, 0, fixed.length);
      System.arraycopy(bestFree, 0, result, fixed.length, bestFree.length);
      Arrays.sort(result);
      return new Outcome(result, !outOfBudget, nodes);
    }

    private void descend(int p, int remaining, long value) {
      if (remaining == 0) {
        if (value > bestValue || (value == bestValue && compareChosen() < 0)) {
          bestValue = value;
          bestFree = Arrays.copyOf(chosen, depth);
        }
        return;
      }
      while (p < n && isFixed[p]) {
        p++;
      }
      if (freeFrom[p] < remaining) {
        return;
      }
      if (++nodes > budget) {
        outOfBudget = true;
        return;
      }
      long bound = value + bound(p, remaining) / 2;
      if (bound < bestValue
          || (bound == bestValue && compareSmallestCompletion(p, remaining) >= 0)) {
        return;
      }
      // Take p.
      chosen[depth++] = p;
      long taken = value + gain[p];
      addToGains(p);
      descend(p + 1, remaining - 1, taken);
      removeFromGains(p);
      depth--;
      if (outOfBudget) {
        return;
      }
      // Leave p out.
      descend(p + 1, remaining, value);
    }

    /** The doubled bound on what {@code remaining} more candidates from {@code p} can add. */
    private long bound(int p, int remaining) {
      long cross = crossMax[p];
      Arrays.fill(dp, Long.MIN_VALUE);
      dp[0] = 0;
      for (int[] members : islands) {
        int from = firstAtLeast(members, p);
        int m = members.length - from;
        if (m == 0) {
          continue;
        }
        int most = Math.min(m, remaining);
        for (int i = from; i < members.length; i++) {
          fillPrefix(members[i], p, most - 1);
        }
        System.arraycopy(dp, 0, nextDp, 0, dp.length);
        for (int t = 1; t <= most; t++) {
          for (int i = from; i < members.length; i++) {
            int u = members[i];
            values[i - from] = 2 * gain[u] + prefix[u][Math.min(t - 1, prefix[u].length - 1)];
          }
          long top = topSum(values, m, t) - cross * t * t;
          for (int j = 0; j + t <= remaining; j++) {
            if (dp[j] != Long.MIN_VALUE) {
              nextDp[j + t] = Math.max(nextDp[j + t], dp[j] + top);
            }
          }
        }
        System.arraycopy(nextDp, 0, dp, 0, dp.length);
      }
      return dp[remaining] + cross * remaining * remaining;
    }

    /**
     * prefix[u][j]: u's j heaviest pairs with island partners >= p. Only {@code limit} are needed,
     * and a unit whose partners ran out keeps its last sum (fewer partners, fewer pairs).
     */
    private void fillPrefix(int u, int p, int limit) {
      long[] sums = prefix[u];
      sums[0] = 0;
      int filled = 0;
      for (int v : partners[u]) {
        if (filled >= limit) {
          break;
        }
        if (v >= p) {
          sums[filled + 1] = sums[filled] + objective.pair(u, v);
          filled++;
        }
      }
      for (int j = filled + 1; j < sums.length; j++) {
        sums[j] = sums[filled];
      }
    }

    private static int firstAtLeast(int[] ascending, int p) {
      int at = Arrays.binarySearch(ascending, p);
      return at >= 0 ? at : -at - 1;
    }

    /** Sum of the {@code t} largest of {@code values[0..m-1]}; reorders them. */
    private static long topSum(long[] values, int m, int t) {
      if (t == m) {
        long all = 0;
        for (int i = 0; i < m; i++) {
          all += values[i];
        }
        return all;
      }
      Arrays.sort(values, 0, m);
      long top = 0;
      for (int i = m - t; i < m; i++) {
        top += values[i];
      }
      return top;
    }

    /** The chosen free units against the best set's, lexicographically. */
    private int compareChosen() {
      return ScoreTable.compareIndices(Arrays.copyOf(chosen, depth), bestFree);
    }

    /**
     * The smallest set below this node (the chosen units, then the first free ones from {@code p})
     * against the best set, lexicographically over the free units; both have the same length.
     */
    private int compareSmallestCompletion(int p, int remaining) {
      int i = 0;
      for (; i < depth; i++) {
        if (chosen[i] != bestFree[i]) {
          return Integer.compare(chosen[i], bestFree[i]);
        }
      }
      for (int u = p; remaining > 0; u++) {
        if (isFixed[u]) {
          continue;
        }
        if (u != bestFree[i]) {
          return Integer.compare(u, bestFree[i]);
        }
        i++;
        remaining--;
      }
      return 0;
    }
  }
}
