package io.acceld.allocation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The exact search for requests too large to enumerate: a branch and bound over units in index
 * order, with a bound built from the node's NVLink islands. Within its work budget ({@link
 * #DEFAULT_WORK_BUDGET} steps) the answer is the optimum and the tie-break winner, exactly as
 * {@link ExactSearch} defines them. A search that runs out of budget answers the better of the best
 * set it has seen and {@link GreedySwapSearch}'s; the budget is counted in steps, not time, so the
 * same request always gets the same answer.
 *
 * <h2>The bound</h2>
 *
 * Objectives are {@link ScalarObjective} values. A search node has chosen a set S (the fixed units
 * and the units it decided to take) and must pick r more from the candidates, the free units after
 * the last decided index. Candidates fall into islands: connected components of the NVLink graph
 * among the free units, which on NVLink nodes are cliques or near-cliques (an NVSwitch tray, a
 * hybrid cube mesh). Every pair across islands has no NVLinks and weighs at most M, the heaviest
 * such pair among the candidates. With gain(c) a unit's own weight plus its pairs with S, any
 * completion R taking t_a units from island a satisfies
 *
 * <pre>2·value(R) ≤ Σ_a [ B_a(t_a) − M·t_a² ] + M·r²</pre>
 *
 * where B_a(t) bounds twice the gains plus the pairs of t candidates of island a: exactly, as the
 * best over every subset of the island's candidates, for islands of up to {@link #EXACT_ISLAND}
 * (the pair sums of every subset are worked out once per request, the gains per node), and for
 * larger islands as the top t of {2·gain(c) + c's t−1 heaviest island pairs}. The r² − Σ t_a²
 * ordered pairs across islands count M each. Maximising the right side over Σ t_a = r is a knapsack
 * over islands, solved exactly by dynamic programming. The bound is exact in the NVLink digit on
 * every island, so a node is cut as soon as the NVLinks it can still reach fall short; its only
 * slack is in how PCIe and NUMA weigh pairs across islands. The maximising choice at the root is
 * itself a set, and the first incumbent.
 *
 * <p>Nodes are visited in index order, taking a unit before leaving it out, which visits sets in
 * lexicographic order: a node is also cut when its bound only ties the best set and its smallest
 * completion does not sort before it.
 */
final class IslandSearch implements SubsetSearch {
  /**
   * Steps of work at most per request (an addition or comparison each, roughly: see {@link
   * Run#work}), about a millisecond at 64 devices; random fragmented 64-device island nodes need a
   * fraction of it (see BENCHMARKS.md and IslandSearchTest).
   */
  static final long DEFAULT_WORK_BUDGET = 400_000;

  /** More groups of islands than this (NUMA nodes, in practice) are bound as one group. */
  static final int MAX_GROUPS = 8;

  /** Islands up to this size get the exact per-subset bound: 2^12 subsets at most. */
  static final int EXACT_ISLAND = 12;

  /** The answer and whether the search finished within its budget, so it is proven optimal. */
  record Outcome(int[] units, boolean proven, long nodes, long work) {}

  private final SubsetSearch fallback;
  private final long nodeBudget;

  IslandSearch() {
    this(new GreedySwapSearch(), DEFAULT_WORK_BUDGET);
  }

  /**
   * @param fallback consulted when the budget runs out (and for objectives too large to pack)
   */
  IslandSearch(SubsetSearch fallback, long nodeBudget) {
    this.fallback = fallback;
    this.nodeBudget = nodeBudget;
  }

  @Override
  public int[] best(ScoreTable table, int[] fixed, int size) {
    return search(table, fixed, size).units();
  }

  Outcome search(ScoreTable table, int[] fixed, int size) {
    int n = table.size();
    if (size <= fixed.length) {
      return new Outcome(fixed.clone(), true, 0, 0);
    }
    if (size >= n) {
      int[] all = new int[n];
      Arrays.setAll(all, u -> u);
      return new Outcome(all, true, 0, 0);
    }
    ScalarObjective objective = ScalarObjective.of(table, size);
    if (objective == null) {
      return new Outcome(fallback.best(table, fixed, size), false, 0, 0);
    }
    Outcome found = new Run(table, objective, fixed, size, nodeBudget).search();
    if (found.proven()) {
      return found;
    }
    int[] other = fallback.best(table, fixed, size);
    long a = objective.of(found.units());
    long b = objective.of(other);
    boolean otherWins = b > a || (b == a && ScoreTable.compareIndices(other, found.units()) < 0);
    return new Outcome(otherWins ? other : found.units(), false, found.nodes(), found.work());
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
    // pooled[a]: islands[a] is every one-unit island of its group, pooled (no pairs inside).
    private boolean[] pooled;
    // Groups of islands joined by same-NUMA pairs: groups[g] lists islands, group[u] is u's.
    private int[][] groups;
    private final int[] group;
    // For islands of up to EXACT_ISLAND: twice the pair sum of every subset of its members, by
    // bit mask over islands[a]. Null for larger islands.
    private final long[][] pairSums;
    // For larger islands: partners[u], the other units of u's island, heaviest pair first.
    private final int[][] partners;
    // crossIn[g][p]: heaviest pair between free units >= p of different islands of group g;
    // crossOut[p]: of different groups.
    private final long[][] crossIn;
    private final long[] crossOut;
    // freeFrom[p]: free units >= p.
    private final int[] freeFrom;
    // gain[u]: u's own weight plus its pairs with the chosen set.
    private final long[] gain;
    private final long startValue;
    private final int[] chosen;
    private int depth;

    private long bestValue;
    private int[] bestFree;
    private long nodes;
    // Steps of work done: n per node for the gains, and what each bound costs (see bound).
    private long work;
    private boolean outOfBudget;

    // Bound scratch.
    private final long[] dp;
    private final long[] nextDp;
    private final long[] inner;
    private final long[] nextInner;
    private final long[] islandBest;
    private final long[] subsetGains;
    private final long[] values;
    private final long[] prefix;
    // Only for the root's bound, whose maximiser is the first incumbent: per island, per count.
    private int[][] countChoice;
    private int[][] groupChoice;
    private int[][] subsetChoice;

    Run(ScoreTable table, ScalarObjective objective, int[] fixed, int size, long budget) {
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
      this.group = new int[n];
      this.islands = grouped(table, islandsOf(table));
      this.pairSums = new long[islands.length][];
      this.partners = new int[n][];
      int largest = 0;
      for (int a = 0; a < islands.length; a++) {
        int[] members = islands[a];
        if (pooled[a]) {
          continue; // no pairs inside: see bestSingletons
        }
        largest = Math.max(largest, members.length);
        if (members.length <= EXACT_ISLAND) {
          pairSums[a] = pairSumsOf(members);
        } else {
          for (int u : members) {
            partners[u] = byWeight(u, members);
          }
        }
      }
      this.crossIn = new long[groups.length][n + 1];
      this.crossOut = new long[n + 1];
      this.freeFrom = new int[n + 1];
      for (int p = n - 1; p >= 0; p--) {
        for (long[] in : crossIn) {
          in[p] = in[p + 1];
        }
        crossOut[p] = crossOut[p + 1];
        freeFrom[p] = freeFrom[p + 1];
        if (isFixed[p]) {
          continue;
        }
        freeFrom[p]++;
        for (int q = p + 1; q < n; q++) {
          if (isFixed[q] || island[q] == island[p]) {
            continue;
          }
          if (group[q] == group[p]) {
            crossIn[group[p]][p] = Math.max(crossIn[group[p]][p], objective.pair(p, q));
          } else {
            crossOut[p] = Math.max(crossOut[p], objective.pair(p, q));
          }
        }
      }
      this.gain = new long[n];
      for (int u = 0; u < n; u++) {
        gain[u] = objective.unit(u);
      }
      long start = 0;
      for (int f : fixed) {
        start += gain[f];
        addToGains(f);
      }
      this.startValue = start;
      int r = size - fixed.length;
      this.chosen = new int[r];
      this.dp = new long[r + 1];
      this.nextDp = new long[r + 1];
      this.inner = new long[r + 1];
      this.nextInner = new long[r + 1];
      this.islandBest = new long[r + 1];
      this.subsetGains = new long[1 << Math.min(largest, EXACT_ISLAND)];
      this.values = new long[n];
      this.prefix = new long[n * (r + 1)];
    }

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

    /**
     * Sorts the islands into groups, joining two islands when any of their pairs shares a known
     * NUMA node, so that every pair across groups is across NUMA nodes and the bound can weigh it
     * as such (without groups, a set split over two sockets would be bound as if it were on one).
     * Within each group, the islands of one unit are pooled into one: they have no pairs inside, so
     * one sort of their gains bounds them all, where one DP step each would cost a node's bound 64
     * steps on a node without NVLink. Sets {@link #groups}, {@link #group} and {@link #pooled}.
     */
    private int[][] grouped(ScoreTable table, int[][] components) {
      int[] root = new int[components.length];
      for (int a = 0; a < root.length; a++) {
        root[a] = a;
      }
      for (int u = 0; u < n; u++) {
        for (int v = u + 1; v < n; v++) {
          if (!isFixed[u] && !isFixed[v] && table.numa(u, v) > 0) {
            root[find(root, island[u])] = find(root, island[v]);
          }
        }
      }
      int roots = 0;
      for (int a = 0; a < root.length; a++) {
        roots += find(root, a) == a ? 1 : 0;
      }
      if (roots > MAX_GROUPS) {
        // Devices with unknown NUMA nodes pair with nothing and would each be a group: the bound
        // would cost a DP step per device and crossIn n² longs. One group is always a valid bound.
        for (int a = 1; a < root.length; a++) {
          root[find(root, a)] = find(root, 0);
        }
      }
      List<int[]> result = new ArrayList<>();
      List<Boolean> pools = new ArrayList<>();
      List<int[]> members = new ArrayList<>();
      for (int g = 0; g < components.length; g++) {
        if (find(root, g) != g) {
          continue;
        }
        List<Integer> ofGroup = new ArrayList<>();
        List<Integer> singles = new ArrayList<>();
        for (int a = 0; a < components.length; a++) {
          if (find(root, a) != g) {
            continue;
          }
          if (components[a].length == 1) {
            singles.add(components[a][0]);
          } else {
            ofGroup.add(result.size());
            result.add(components[a]);
            pools.add(false);
          }
        }
        if (!singles.isEmpty()) {
          ofGroup.add(result.size());
          result.add(singles.stream().mapToInt(Integer::intValue).sorted().toArray());
          pools.add(true);
        }
        members.add(ofGroup.stream().mapToInt(Integer::intValue).toArray());
      }
      this.groups = members.toArray(int[][]::new);
      this.pooled = new boolean[result.size()];
      for (int a = 0; a < pooled.length; a++) {
        pooled[a] = pools.get(a);
      }
      for (int g = 0; g < groups.length; g++) {
        for (int a : groups[g]) {
          for (int u : result.get(a)) {
            group[u] = g;
          }
        }
      }
      return result.toArray(int[][]::new);
    }

    private static int find(int[] root, int u) {
      while (root[u] != u) {
        root[u] = root[root[u]];
        u = root[u];
      }
      return u;
    }

    /** Twice the pair sum of every subset of {@code members}, by bit mask. */
    private long[] pairSumsOf(int[] members) {
      long[] sums = new long[1 << members.length];
      for (int mask = 1; mask < sums.length; mask++) {
        int low = Integer.numberOfTrailingZeros(mask);
        int rest = mask & (mask - 1);
        long withLow = 0;
        for (int bits = rest; bits != 0; bits &= bits - 1) {
          withLow += objective.pair(members[low], members[Integer.numberOfTrailingZeros(bits)]);
        }
        sums[mask] = sums[rest] + 2 * withLow;
      }
      return sums;
    }

    private int[] byWeight(int u, int[] members) {
      return Arrays.stream(members)
          .filter(v -> v != u)
          .boxed()
          .sorted((x, y) -> Long.compare(objective.pair(u, y), objective.pair(u, x)))
          .mapToInt(Integer::intValue)
          .toArray();
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
      int remaining = size - fixed.length;
      int[] seed = rootMaximiser(remaining);
      bestValue = objective.of(seed);
      bestFree = Arrays.stream(seed).filter(u -> !isFixed[u]).sorted().toArray();
      descend(0, remaining, startValue);
      int[] result = new int[size];
      System.arraycopy(fixed, 0, result, 0, fixed.length);
      System.arraycopy(bestFree, 0, result, fixed.length, bestFree.length);
      Arrays.sort(result);
      return new Outcome(result, !outOfBudget, nodes, work);
    }

    /** The set the root's bound is attained by, were every cross pair M: the first incumbent. */
    private int[] rootMaximiser(int remaining) {
      countChoice = new int[islands.length][remaining + 1];
      subsetChoice = new int[islands.length][remaining + 1];
      groupChoice = new int[groups.length][remaining + 1];
      bound(0, remaining);
      // Each group's choice is read back after the fact, so redo its inner DP with its count.
      int[] set = new int[size];
      System.arraycopy(fixed, 0, set, 0, fixed.length);
      int at = fixed.length;
      int left = remaining;
      int[] groupCount = new int[groups.length];
      for (int g = groups.length - 1; g >= 0; g--) {
        groupCount[g] = groupChoice[g][left];
        left -= groupCount[g];
      }
      for (int g = 0; g < groups.length; g++) {
        if (groupCount[g] == 0) {
          continue;
        }
        islandsOf(g, 0, remaining, crossIn[g][0]);
        int inGroup = groupCount[g];
        int[] ofGroup = groups[g];
        for (int i = ofGroup.length - 1; i >= 0 && inGroup > 0; i--) {
          int a = ofGroup[i];
          int t = countChoice[a][inGroup];
          if (t == 0) {
            continue;
          }
          int[] members = islands[a];
          if (pairSums[a] != null) {
            bestSubsets(a, 0, Math.min(members.length, remaining));
            for (int bits = subsetChoice[a][t]; bits != 0; bits &= bits - 1) {
              set[at++] = members[Integer.numberOfTrailingZeros(bits)];
            }
          } else {
            for (int u : topByValue(members, t)) {
              set[at++] = u;
            }
          }
          inGroup -= t;
        }
      }
      countChoice = null;
      subsetChoice = null;
      groupChoice = null;
      Arrays.sort(set);
      return set;
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
      if (work >= budget) {
        outOfBudget = true;
        return;
      }
      nodes++;
      work += n;
      long bound = value + bound(p, remaining) / 2;
      if (bound < bestValue
          || (bound == bestValue && compareSmallestCompletion(p, remaining) >= 0)) {
        return;
      }
      long taken = value + gain[p];
      chosen[depth++] = p;
      addToGains(p);
      descend(p + 1, remaining - 1, taken);
      removeFromGains(p);
      depth--;
      if (outOfBudget) {
        return;
      }
      descend(p + 1, remaining, value);
    }

    /**
     * Twice the most {@code remaining} more candidates from {@code p} can add (see above), in two
     * levels: islands within each group, with cross pairs at that group's heaviest, then groups,
     * with pairs across groups at the heaviest of those.
     */
    private long bound(int p, int remaining) {
      long outside = crossOut[p];
      Arrays.fill(dp, Long.MIN_VALUE);
      dp[0] = 0;
      int reach = 0;
      for (int g = 0; g < groups.length; g++) {
        long inside = crossIn[g][p];
        int groupReach = islandsOf(g, p, remaining, inside);
        System.arraycopy(dp, 0, nextDp, 0, dp.length);
        if (groupChoice != null) {
          Arrays.fill(groupChoice[g], 0);
        }
        for (int t = 1; t <= groupReach; t++) {
          long top = inner[t] + (inside - outside) * t * t;
          for (int j = 0; j <= reach && j + t <= remaining; j++) {
            if (dp[j] != Long.MIN_VALUE && dp[j] + top > nextDp[j + t]) {
              nextDp[j + t] = dp[j] + top;
              if (groupChoice != null) {
                groupChoice[g][j + t] = t;
              }
            }
          }
        }
        work += (long) groupReach * (reach + 1);
        reach = Math.min(remaining, reach + groupReach);
        System.arraycopy(nextDp, 0, dp, 0, dp.length);
      }
      return dp[remaining] + outside * remaining * remaining;
    }

    /**
     * Fills {@link #inner}[t] with the most t candidates of group g from {@code p} can add, less
     * {@code inside}·t² (the group's own cross pairs are added back by the caller); returns how
     * many candidates the group has, at most {@code remaining}.
     */
    private int islandsOf(int g, int p, int remaining, long inside) {
      Arrays.fill(inner, Long.MIN_VALUE);
      inner[0] = 0;
      int reach = 0;
      for (int a : groups[g]) {
        int[] members = islands[a];
        int from = firstAtLeast(members, p);
        int most = Math.min(members.length - from, remaining);
        if (countChoice != null) {
          Arrays.fill(countChoice[a], 0);
        }
        if (most == 0) {
          continue;
        }
        if (pooled[a]) {
          bestSingletons(members, from, most);
        } else if (pairSums[a] != null) {
          bestSubsets(a, from, most);
        } else {
          bestByPartners(members, from, most, p);
        }
        System.arraycopy(inner, 0, nextInner, 0, inner.length);
        for (int t = 1; t <= most; t++) {
          // Pooled singletons are t islands of one: t, not t², of the r² ordered pairs are inside.
          long top = islandBest[t] - inside * (pooled[a] ? t : (long) t * t);
          for (int j = 0; j <= reach && j + t <= remaining; j++) {
            if (inner[j] != Long.MIN_VALUE && inner[j] + top > nextInner[j + t]) {
              nextInner[j + t] = inner[j] + top;
              if (countChoice != null) {
                countChoice[a][j + t] = t;
              }
            }
          }
        }
        work += (long) most * (reach + 1);
        reach = Math.min(remaining, reach + most);
        System.arraycopy(nextInner, 0, inner, 0, inner.length);
      }
      return reach;
    }

    /**
     * islandBest[t]: the best 2·gains + 2·pairs over subsets of t of the island's members from
     * index {@code from} on, every subset tried.
     */
    private void bestSubsets(int a, int from, int most) {
      int[] members = islands[a];
      long[] pairs = pairSums[a];
      int bits = members.length - from;
      work += 1L << bits;
      Arrays.fill(islandBest, 0, most + 1, Long.MIN_VALUE);
      subsetGains[0] = 0;
      for (int mask = 1; mask < 1 << bits; mask++) {
        int t = Integer.bitCount(mask);
        int low = Integer.numberOfTrailingZeros(mask);
        subsetGains[mask] = subsetGains[mask & (mask - 1)] + 2 * gain[members[from + low]];
        if (t <= most) {
          long value = subsetGains[mask] + pairs[mask << from];
          if (value > islandBest[t]) {
            islandBest[t] = value;
            if (subsetChoice != null) {
              subsetChoice[a][t] = mask << from;
            }
          }
        }
      }
    }

    /**
     * islandBest[t]: top t of 2·gain(c) + c's t−1 heaviest pairs with members >= p, a bound for
     * islands too large to try every subset of.
     */
    private void bestByPartners(int[] members, int from, int most, int p) {
      int stride = size - fixed.length + 1;
      for (int i = from; i < members.length; i++) {
        int u = members[i];
        int base = i * stride;
        prefix[base] = 0;
        int filled = 0;
        for (int v : partners[u]) {
          if (filled >= most - 1) {
            break;
          }
          if (v >= p) {
            prefix[base + filled + 1] = prefix[base + filled] + objective.pair(u, v);
            filled++;
          }
        }
        for (int j = filled + 1; j < most; j++) {
          prefix[base + j] = prefix[base + filled];
        }
      }
      int m = members.length - from;
      work += (long) m * (partners[members[from]].length + most * (2 + ceilLog2(m)));
      for (int t = 1; t <= most; t++) {
        for (int i = from; i < members.length; i++) {
          values[i - from] = 2 * gain[members[i]] + prefix[i * stride + t - 1];
        }
        Arrays.sort(values, 0, m);
        long top = 0;
        for (int i = m - t; i < m; i++) {
          top += values[i];
        }
        islandBest[t] = top;
      }
    }

    /** islandBest[t]: the t largest of 2·gain over the pooled singletons from {@code from} on. */
    private void bestSingletons(int[] members, int from, int most) {
      int m = members.length - from;
      work += (long) m * (1 + ceilLog2(m));
      for (int i = from; i < members.length; i++) {
        values[i - from] = 2 * gain[members[i]];
      }
      Arrays.sort(values, 0, m);
      islandBest[0] = 0;
      for (int t = 1; t <= most; t++) {
        islandBest[t] = islandBest[t - 1] + values[m - t];
      }
    }

    private static int ceilLog2(int m) {
      return 32 - Integer.numberOfLeadingZeros(Math.max(1, m - 1));
    }

    /** For the root's maximiser: the t members with the largest gains, ties to lower index. */
    private int[] topByValue(int[] members, int t) {
      return Arrays.stream(members)
          .boxed()
          .sorted((x, y) -> Long.compare(gain[y], gain[x]))
          .limit(t)
          .mapToInt(Integer::intValue)
          .toArray();
    }

    private static int firstAtLeast(int[] ascending, int p) {
      int at = Arrays.binarySearch(ascending, p);
      return at >= 0 ? at : -at - 1;
    }

    /** The chosen free units against the best set's, lexicographically. */
    private int compareChosen() {
      for (int i = 0; i < depth; i++) {
        if (chosen[i] != bestFree[i]) {
          return Integer.compare(chosen[i], bestFree[i]);
        }
      }
      return 0;
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
