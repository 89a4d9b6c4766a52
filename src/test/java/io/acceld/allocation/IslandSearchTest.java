package io.acceld.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.allocation.PreferredAllocator.Request;
import io.acceld.allocation.PreferredAllocatorPropertyTest.BruteForce;
import io.acceld.allocation.PreferredAllocatorPropertyTest.RandomNode;
import io.acceld.allocation.PreferredAllocatorPropertyTest.RandomRequest;
import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.ReplicaId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The branch and bound used beyond the enumeration budget: exact against the brute force where one
 * can be run, and against an independent island-by-island optimum on 64-device nodes where it
 * cannot.
 */
class IslandSearchTest {

  @Test
  void matchesTheBruteForceOptimumAndTieBreakOnRandomNodesWhenItMustSearchThemAll() {
    Random random = new Random(20_261_201L);
    SubsetSearch unbounded = new IslandSearch(new GreedySwapSearch(), Long.MAX_VALUE);
    int searched = 0;
    for (int round = 0; round < 400; round++) {
      RandomNode node = RandomNode.random(random, 3 + random.nextInt(13));
      RandomRequest drawn = RandomRequest.of(random, node.ids());
      List<String> available = drawn.available();
      List<String> must = drawn.must();
      int size = drawn.size();

      // Budget 0 for enumeration: every request that needs a search takes the branch and bound.
      List<String> actual = new PreferredAllocator(node, 0, unbounded).choose(drawn.request());

      BruteForce bruteForce = new BruteForce(node);
      assertThat(actual)
          .as("round %d: available=%s must=%s size=%d", round, available, must, size)
          .isEqualTo(bruteForce.expected(available, must, size));
      if (size < available.size() && must.stream().distinct().count() < size) {
        searched++;
      }
    }
    assertThat(searched).isGreaterThan(200);
  }

  /**
   * With shared GPUs the less-loaded tie-break (available replicas per device) is the objective's
   * last digit: the branch and bound must agree with the enumeration there too.
   */
  @Test
  void agreesWithTheEnumerationOnReplicaLoadTieBreaks() {
    Random random = new Random(7_777);
    SubsetSearch unbounded = new IslandSearch(new GreedySwapSearch(), Long.MAX_VALUE);
    for (int round = 0; round < 200; round++) {
      RandomNode node = RandomNode.random(random, 4 + random.nextInt(11));
      List<String> available = new ArrayList<>();
      for (String id : node.ids()) {
        for (int k = random.nextInt(4); k >= 0; k--) {
          if (random.nextInt(3) > 0) {
            available.add(id + "::" + k);
          }
        }
      }
      if (available.isEmpty()) {
        continue;
      }
      int physical = (int) available.stream().map(ReplicaId::physicalOf).distinct().count();
      List<String> must =
          random.nextBoolean()
              ? List.of()
              : List.of(available.get(random.nextInt(available.size())));
      int size = 1 + random.nextInt(physical);
      Request request = new Request(available, must, size, ReplicaId::physicalOf);

      assertThat(new PreferredAllocator(node, 0, unbounded).choose(request))
          .as("round %d: available=%s must=%s size=%d", round, available, must, size)
          .isEqualTo(new PreferredAllocator(node).choose(request));
    }
  }

  @Test
  void isOptimalOnRandomFragmentedSixtyFourDeviceIslandNodes() {
    Random random = new Random(64);
    int cases = 0;
    int greedyWorse = 0;
    long maxNodes = 0;
    long maxWork = 0;
    for (int round = 0; round < 120; round++) {
      IslandNode node = IslandNode.random(random);
      List<String> available = new ArrayList<>(node.topology().ids());
      Collections.shuffle(available, random);
      available = new ArrayList<>(available.subList(0, 24 + random.nextInt(33)));
      List<String> must = new ArrayList<>();
      if (random.nextInt(3) == 0) {
        must.add(available.get(random.nextInt(available.size())));
      }
      int size = 2 + random.nextInt(15);

      List<String> chosen =
          new PreferredAllocator(node.topology(), node.topology().ids())
              .choose(Request.of(available, must, size));
      List<String> greedy =
          new PreferredAllocator(node.topology(), 0, new GreedySwapSearch())
              .choose(Request.of(available, must, size));

      long[] optimum = node.optimum(available, must, size);
      BruteForce score = new BruteForce(node.topology());
      assertThat(chosen).hasSize(size).containsAll(must);
      assertThat(available).containsAll(chosen);
      assertThat(score.score(chosen))
          .as("round %d: available=%s must=%s size=%d", round, available, must, size)
          .isEqualTo(optimum);
      IslandSearch.Outcome outcome = searchDirectly(node.topology(), available, must, size);
      assertThat(outcome.proven()).as("round %d finished within its budget", round).isTrue();
      maxNodes = Math.max(maxNodes, outcome.nodes());
      maxWork = Math.max(maxWork, outcome.work());
      cases++;
      if (BruteForce.compareScores(score.score(greedy), optimum) < 0) {
        greedyWorse++;
      }
    }
    System.out.printf(
        "greedy + 1-swap below the optimum in %d of %d cases; at most %d search nodes, %d steps%n",
        greedyWorse, cases, maxNodes, maxWork);
    // The nodes must be hard enough that the greedy search alone fails on some of them.
    assertThat(greedyWorse).isPositive();
  }

  /**
   * Nodes where the islands do not help (no NVLink at all, or one NVSwitch island of all 64 GPUs)
   * and whose PCIe levels are random, so they are no tree either ({@link HierarchySearch} declines
   * them, which is why the allocator keeps this search for them): the search may run out of budget,
   * but then stops there and answers no worse than the greedy search would have.
   */
  @Test
  void aNodeWithoutUsefulIslandsCostsNoMoreThanTheBudgetAndNeverLosesToGreedy() {
    Random random = new Random(99);
    int outOfBudget = 0;
    for (int round = 0; round < 20; round++) {
      RandomNode node = noUsefulIslands(random, round % 2 == 0 ? 0 : 18);
      List<String> available = new ArrayList<>(node.ids());
      Collections.shuffle(available, random);
      available = available.subList(0, 40 + random.nextInt(25));
      int size = 2 + random.nextInt(15);

      IslandSearch.Outcome outcome = searchDirectly(node, available, List.of(), size);
      List<String> greedy =
          new PreferredAllocator(node, 0, new GreedySwapSearch())
              .choose(Request.of(available, List.of(), size));

      List<String> units = available.stream().sorted().toList();
      List<String> chosen = Arrays.stream(outcome.units()).mapToObj(units::get).toList();
      BruteForce score = new BruteForce(node);
      // The budget is checked before each node, so one node's bound may run past it.
      assertThat(outcome.work()).isLessThan(IslandSearch.DEFAULT_WORK_BUDGET * 11 / 10);
      assertThat(chosen).hasSize(size).doesNotHaveDuplicates();
      assertThat(BruteForce.compareScores(score.score(chosen), score.score(greedy)))
          .as("round %d", round)
          .isGreaterThanOrEqualTo(0);
      if (!outcome.proven()) {
        outOfBudget++;
      }
    }
    System.out.printf("%d of 20 structureless searches ran out of budget%n", outOfBudget);
  }

  /** 64 devices, every pair {@code links} NVLinks, random PCIe levels and two NUMA nodes. */
  private static RandomNode noUsefulIslands(Random random, int links) {
    int count = 64;
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(String.format("n%02d", i));
    }
    PcieLevel[] palette = {PcieLevel.SINGLE, PcieLevel.MULTIPLE, PcieLevel.NODE, PcieLevel.SYSTEM};
    int[][] nvlinks = new int[count][count];
    PcieLevel[][] levels = new PcieLevel[count][count];
    int[] numa = new int[count];
    for (int i = 0; i < count; i++) {
      numa[i] = random.nextInt(2);
      levels[i][i] = PcieLevel.INTERNAL;
      for (int j = i + 1; j < count; j++) {
        nvlinks[i][j] = links;
        nvlinks[j][i] = links;
        levels[i][j] = palette[random.nextInt(palette.length)];
        levels[j][i] = levels[i][j];
      }
    }
    return new RandomNode(ids, nvlinks, levels, numa);
  }

  /** The branch and bound on the request's table, as the allocator runs it without replicas. */
  static IslandSearch.Outcome searchDirectly(
      AllocationTopology topology, List<String> available, List<String> must, int size) {
    List<String> units = available.stream().distinct().sorted().toList();
    int[] spare = new int[units.size()];
    Arrays.fill(spare, 1);
    ScoreTable table = ScoreModel.of(topology).table(units, spare);
    int[] fixed = must.stream().distinct().mapToInt(units::indexOf).sorted().toArray();
    return new IslandSearch().search(table, fixed, size);
  }

  /**
   * A random 64-device node of eight NVLink islands of 8, each a near-clique with random link
   * counts and PCIe levels inside; between islands no NVLink and one PCIe level and NUMA relation
   * per pair of islands. IDs are shuffled, so ID order says nothing about islands.
   */
  record IslandNode(RandomNode topology, int[] islandOf) {
    static final int DEVICES = 64;
    static final int ISLAND = 8;

    static IslandNode random(Random random) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < DEVICES; i++) {
        ids.add(String.format("g%02d", i));
      }
      Collections.shuffle(ids, random);
      int islands = DEVICES / ISLAND;
      int[] islandOf = new int[DEVICES];
      int[] islandNuma = new int[islands];
      for (int a = 0; a < islands; a++) {
        islandNuma[a] = random.nextInt(4) == 0 ? -1 : (a < islands / 2 ? 0 : 1);
      }
      PcieLevel[][] between = new PcieLevel[islands][islands];
      for (int a = 0; a < islands; a++) {
        for (int b = a; b < islands; b++) {
          PcieLevel level =
              random.nextInt(3) == 0
                  ? PcieLevel.HOSTBRIDGE
                  : (islandNuma[a] == islandNuma[b] ? PcieLevel.NODE : PcieLevel.SYSTEM);
          between[a][b] = level;
          between[b][a] = level;
        }
      }
      PcieLevel[] inside = {PcieLevel.SINGLE, PcieLevel.MULTIPLE, PcieLevel.NODE};
      int[][] nvlinks = new int[DEVICES][DEVICES];
      PcieLevel[][] levels = new PcieLevel[DEVICES][DEVICES];
      int[] numa = new int[DEVICES];
      int missing = random.nextInt(3); // 0: cliques; higher: sparser near-cliques
      for (int i = 0; i < DEVICES; i++) {
        islandOf[i] = i / ISLAND;
        numa[i] = islandNuma[islandOf[i]];
        levels[i][i] = PcieLevel.INTERNAL;
        for (int j = i + 1; j < DEVICES; j++) {
          boolean same = i / ISLAND == j / ISLAND;
          int links = 0;
          PcieLevel level = between[i / ISLAND][j / ISLAND];
          if (same) {
            links = random.nextInt(8) < missing ? 0 : 1 + random.nextInt(random.nextInt(2) + 2);
            level = (i ^ 1) == j ? PcieLevel.SINGLE : inside[random.nextInt(inside.length)];
          }
          nvlinks[i][j] = links;
          nvlinks[j][i] = links;
          levels[i][j] = level;
          levels[j][i] = level;
        }
      }
      return new IslandNode(new RandomNode(ids, nvlinks, levels, numa), islandOf);
    }

    /**
     * The optimum by another route: since every pair across islands weighs the same for a given
     * pair of islands, a set's score is the sum of each island's part plus a term that depends on
     * how many devices each island gives. So: every subset of each island (at most 2⁸), the best
     * per size, then every way to split {@code size} over the islands.
     */
    long[] optimum(List<String> available, List<String> must, int size) {
      BruteForce score = new BruteForce(topology);
      int islands = DEVICES / ISLAND;
      long[][][] bestBySize = new long[islands][ISLAND + 1][];
      for (int a = 0; a < islands; a++) {
        List<String> members = new ArrayList<>();
        List<String> required = new ArrayList<>();
        for (String id : available) {
          if (islandOf[topology.index(id)] == a) {
            members.add(id);
            if (must.contains(id)) {
              required.add(id);
            }
          }
        }
        for (int mask = 0; mask < 1 << members.size(); mask++) {
          List<String> part = new ArrayList<>();
          for (int b = 0; b < members.size(); b++) {
            if ((mask & 1 << b) != 0) {
              part.add(members.get(b));
            }
          }
          if (!part.containsAll(required)) {
            continue;
          }
          long[] s = score.score(part);
          long[] known = bestBySize[a][part.size()];
          if (known == null || BruteForce.compareScores(s, known) > 0) {
            bestBySize[a][part.size()] = s;
          }
        }
      }
      long[][][] cross = new long[islands][islands][];
      for (int a = 0; a < islands; a++) {
        for (int b = a + 1; b < islands; b++) {
          cross[a][b] = score.score(List.of(first(a), first(b)));
        }
      }
      return split(bestBySize, cross, new int[islands], 0, size);
    }

    private String first(int island) {
      for (int i = 0; i < DEVICES; i++) {
        if (islandOf[i] == island) {
          return topology.ids().get(i);
        }
      }
      throw new AssertionError();
    }

    private static long[] split(
        long[][][] bestBySize, long[][][] cross, int[] counts, int island, int left) {
      int islands = counts.length;
      if (island == islands) {
        if (left != 0) {
          return null;
        }
        long[] total = new long[3];
        for (int a = 0; a < islands; a++) {
          add(total, bestBySize[a][counts[a]], 1);
          for (int b = a + 1; b < islands; b++) {
            add(total, cross[a][b], (long) counts[a] * counts[b]);
          }
        }
        return total;
      }
      long[] best = null;
      for (int t = 0; t <= Math.min(left, ISLAND); t++) {
        if (bestBySize[island][t] == null) {
          continue;
        }
        counts[island] = t;
        long[] s = split(bestBySize, cross, counts, island + 1, left - t);
        if (s != null && (best == null || BruteForce.compareScores(s, best) > 0)) {
          best = s;
        }
      }
      counts[island] = 0;
      return best;
    }

    private static void add(long[] total, long[] part, long times) {
      for (int c = 0; c < total.length; c++) {
        total[c] += part[c] * times;
      }
    }
  }
}
