package io.acceld.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.allocation.IslandSearchTest.IslandNode;
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
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The dynamic programme for hierarchical nodes (no NVLink, or one NVSwitch fabric, over a PCIe/NUMA
 * tree): exact against the brute force on random tree nodes of up to 16 devices, against an
 * independent count-per-class optimum on fragmented 64- and 80-device nodes, and it must decline
 * (not guess) on nodes that are not hierarchical. Every search here that must take the shortcut
 * runs with a fallback that fails the test, so a test cannot pass by the fallback's answer.
 */
class HierarchySearchTest {
  /** The search beyond the enumeration budget with no fallback: the node must be hierarchical. */
  private static final SubsetSearch TREE_ONLY =
      new HierarchySearch(
          (table, fixed, size) -> {
            throw new AssertionError("the node was not found hierarchical");
          });

  /** The PCIe level at which two devices meet, by the depth of their first differing coordinate. */
  private static final PcieLevel[] BY_DEPTH = {
    PcieLevel.SYSTEM, PcieLevel.NODE, PcieLevel.HOSTBRIDGE, PcieLevel.MULTIPLE, PcieLevel.SINGLE
  };

  @Test
  void matchesTheBruteForceOptimumAndTieBreakOnRandomTreeNodesUpTo16Devices() {
    Random random = new Random(16_161);
    int searched = 0;
    for (int round = 0; round < 400; round++) {
      RandomNode node = treeNode(random, 3 + random.nextInt(14), randomNames(random));
      RandomRequest drawn = RandomRequest.of(random, node.ids());
      List<String> available = drawn.available();
      List<String> must = drawn.must();
      int size = drawn.size();

      // Budget 0 for enumeration: every request that needs a search takes the tree.
      List<String> actual = new PreferredAllocator(node, 0, TREE_ONLY).choose(drawn.request());

      BruteForce bruteForce = new BruteForce(node);
      List<String> expected = bruteForce.expected(available, must, size);
      String description =
          "round %d: available=%s must=%s size=%d".formatted(round, available, must, size);
      assertThat(bruteForce.score(actual)).as(description).isEqualTo(bruteForce.score(expected));
      assertThat(actual).as(description).isEqualTo(expected);
      if (size < available.size() && must.stream().distinct().count() < size) {
        searched++;
      }
    }
    assertThat(searched).isGreaterThan(200);
  }

  /** With shared GPUs the less-loaded tie-break is a unit weight the programme must honour. */
  @Test
  void agreesWithTheEnumerationOnReplicaLoadTieBreaks() {
    Random random = new Random(3_131);
    for (int round = 0; round < 200; round++) {
      RandomNode node = treeNode(random, 4 + random.nextInt(11), randomNames(random));
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
      int size = 1 + random.nextInt(physical + 2); // past the physical count: ReplicaReuse
      Request request = new Request(available, must, size, ReplicaId::physicalOf);

      List<String> actual = new PreferredAllocator(node, 0, TREE_ONLY).choose(request);
      assertThat(actual)
          .as("round %d: available=%s must=%s size=%d", round, available, must, size)
          .isEqualTo(new PreferredAllocator(node).choose(request));
      assertThat(available).containsAll(actual);
      assertThat(actual).containsAll(must).hasSize(Math.min(size, available.size()));
    }
  }

  /**
   * 64 and 80 devices (80 takes two words of mask), no NVLink or one NVSwitch fabric, fragmented:
   * the score must equal the optimum found by enumerating how many devices each class of
   * interchangeable devices gives, and the answer must be a valid one.
   */
  @Test
  void isOptimalOnFragmentedSixtyFourAndEightyDeviceNodesWithoutIslands() {
    Random random = new Random(6_480);
    for (int round = 0; round < 40; round++) {
      int count = round % 4 == 3 ? 80 : 64;
      ClassNode node = ClassNode.random(random, count, round % 2 == 0 ? 0 : 18);
      List<String> available = new ArrayList<>(node.topology().ids());
      Collections.shuffle(available, random);
      available = new ArrayList<>(available.subList(0, count / 2 + random.nextInt(count / 2)));
      List<String> must = new ArrayList<>();
      for (int m = random.nextInt(3); m > 0; m--) {
        must.add(available.get(random.nextInt(available.size())));
      }
      int size = 2 + random.nextInt(15);

      List<String> chosen =
          new PreferredAllocator(node.topology(), 0, TREE_ONLY)
              .choose(Request.of(available, must, size));

      String description =
          "round %d: available=%s must=%s size=%d".formatted(round, available, must, size);
      assertThat(chosen).as(description).hasSize(size).containsAll(must).doesNotHaveDuplicates();
      assertThat(available).as(description).containsAll(chosen);
      assertThat(new BruteForce(node.topology()).score(chosen))
          .as(description)
          .isEqualTo(node.optimum(available, must, size));
      // Interchangeable devices: each class gives its lowest available IDs (the tie-break).
      assertThat(chosen).as(description).isEqualTo(node.lowestPerClass(chosen, available, must));
    }
  }

  /** The production allocator on the benchmark's kind of node takes the shortcut by default. */
  @Test
  void theAllocatorUsesTheTreeOnASixtyFourDeviceNodeWithoutIslands() {
    Random random = new Random(1);
    ClassNode node = ClassNode.random(random, 64, 0);
    List<String> available = node.topology().ids().subList(5, 60);
    List<String> expected =
        new PreferredAllocator(node.topology(), 0, TREE_ONLY)
            .choose(Request.of(available, List.of(), 12));
    assertThat(
            new PreferredAllocator(node.topology(), node.topology().ids())
                .choose(Request.of(available, List.of(), 12)))
        .isEqualTo(expected);
  }

  /**
   * Where the weights are not hierarchical the search must say so rather than answer; where it does
   * answer on a random node, the answer must be the brute force's.
   */
  @Test
  void declinesNodesThatAreNotHierarchicalAndIsRightWhenItAnswers() {
    Random random = new Random(404);
    int declined = 0;
    for (int round = 0; round < 300; round++) {
      RandomNode node = RandomNode.random(random, 4 + random.nextInt(11));
      List<String> available = node.ids();
      int size = 2 + random.nextInt(available.size() - 2);
      int[] found = solveDirectly(node, available, List.of(), size);
      if (found == null) {
        declined++;
        continue;
      }
      List<String> units = available.stream().sorted().toList();
      List<String> chosen = Arrays.stream(found).mapToObj(units::get).toList();
      assertThat(chosen)
          .as("round %d: size=%d", round, size)
          .isEqualTo(new BruteForce(node).expected(available, List.of(), size));
    }
    assertThat(declined).isGreaterThan(100);

    // One pair moved off its level breaks the tree: declined.
    RandomNode tree = treeNode(new Random(5), 12, Nodes.ids("t", 12));
    assertThat(solveDirectly(tree, tree.ids(), List.of(), 5)).isNotNull();
    int[][] links = Arrays.stream(tree.nvlinks()).map(int[]::clone).toArray(int[][]::new);
    links[2][7] += 1;
    links[7][2] += 1;
    RandomNode broken = new RandomNode(tree.ids(), links, tree.levels(), tree.numa());
    assertThat(solveDirectly(broken, broken.ids(), List.of(), 5)).isNull();

    // NVLink island nodes are IslandSearch's: a hybrid cube mesh is no tree.
    RandomNode islands = IslandNode.random(new Random(8)).topology();
    assertThat(solveDirectly(islands, islands.ids(), List.of(), 8)).isNull();
  }

  private static int[] solveDirectly(
      AllocationTopology topology, List<String> available, List<String> must, int size) {
    List<String> units = available.stream().distinct().sorted().toList();
    int[] spare = new int[units.size()];
    Arrays.fill(spare, 1);
    ScoreTable table = ScoreModel.of(topology).table(units, spare);
    int[] fixed = must.stream().distinct().mapToInt(units::indexOf).sorted().toArray();
    return HierarchySearch.solve(table, fixed, size);
  }

  private static List<String> randomNames(Random random) {
    TreeSet<String> names = new TreeSet<>();
    while (names.size() < 16) {
      names.add("d" + random.nextInt(60)); // unpadded: d10 sorts before d2
    }
    List<String> ids = new ArrayList<>(names);
    Collections.shuffle(ids, random);
    return ids;
  }

  /**
   * A random node over a PCIe tree: each device has a path (socket, host bridge, switch group,
   * switch), two devices meet at their first differing coordinate, and a random monotone mapping
   * from that depth to a PCIe level (some levels merged, the root sometimes UNKNOWN). NUMA is the
   * socket, unknown everywhere, or one node for all; NVLink is none, the same count for every pair
   * (an NVSwitch fabric), or a count between devices of one switch (NVLink bridges).
   */
  static RandomNode treeNode(Random random, int count, List<String> names) {
    int[] branching = {1 + random.nextInt(2), 1 + random.nextInt(3), 1 + random.nextInt(2), 3};
    int[][] path = new int[count][branching.length];
    for (int i = 0; i < count; i++) {
      for (int d = 0; d < branching.length; d++) {
        path[i][d] = random.nextInt(branching[d]);
      }
    }
    PcieLevel[] byDepth = new PcieLevel[BY_DEPTH.length];
    int at = random.nextInt(4) == 0 ? -1 : 0; // -1: the root level is UNKNOWN
    for (int d = 0; d < byDepth.length; d++) {
      byDepth[d] = at < 0 ? PcieLevel.UNKNOWN : BY_DEPTH[at];
      if (random.nextInt(3) > 0 || at < 0) {
        at = Math.min(at + 1, BY_DEPTH.length - 1); // else the next depth shares this level
      }
    }
    int numaMode = random.nextInt(3);
    int linkMode = random.nextInt(3);
    int links = 1 + random.nextInt(18);
    int[][] nvlinks = new int[count][count];
    PcieLevel[][] levels = new PcieLevel[count][count];
    int[] numa = new int[count];
    for (int i = 0; i < count; i++) {
      numa[i] = numaMode == 0 ? path[i][0] : numaMode == 1 ? -1 : 0;
      levels[i][i] = PcieLevel.INTERNAL;
      for (int j = i + 1; j < count; j++) {
        int depth = 0;
        while (depth < branching.length && path[i][depth] == path[j][depth]) {
          depth++;
        }
        PcieLevel level = byDepth[Math.min(depth, byDepth.length - 1)];
        int l = linkMode == 0 ? 0 : linkMode == 1 ? links : (depth == branching.length ? links : 0);
        nvlinks[i][j] = l;
        nvlinks[j][i] = l;
        levels[i][j] = level;
        levels[j][i] = level;
      }
    }
    return new RandomNode(new ArrayList<>(names.subList(0, count)), nvlinks, levels, numa);
  }

  /**
   * A large node of a few classes of interchangeable devices (one PCIe switch each, SINGLE inside),
   * the switches spread over host bridges (HOSTBRIDGE) and two sockets (NODE inside, SYSTEM across,
   * NUMA the socket), every pair {@code links} NVLinks. IDs are shuffled.
   */
  record ClassNode(RandomNode topology, int[] classOf, int classes) {
    static ClassNode random(Random random, int count, int links) {
      int classes = 5 + random.nextInt(4);
      int[] socket = new int[classes];
      int[] bridge = new int[classes];
      for (int c = 0; c < classes; c++) {
        socket[c] = c < classes / 2 ? 0 : 1;
        bridge[c] = random.nextInt(2);
      }
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        ids.add(String.format("c%02d", i));
      }
      Collections.shuffle(ids, random);
      int[] classOf = new int[count];
      for (int i = 0; i < count; i++) {
        classOf[i] = i < classes ? i : random.nextInt(classes);
      }
      int[][] nvlinks = new int[count][count];
      PcieLevel[][] levels = new PcieLevel[count][count];
      int[] numa = new int[count];
      for (int i = 0; i < count; i++) {
        numa[i] = socket[classOf[i]];
        levels[i][i] = PcieLevel.INTERNAL;
        for (int j = i + 1; j < count; j++) {
          int a = classOf[i];
          int b = classOf[j];
          PcieLevel level;
          if (a == b) {
            level = PcieLevel.SINGLE;
          } else if (socket[a] != socket[b]) {
            level = PcieLevel.SYSTEM;
          } else {
            level = bridge[a] == bridge[b] ? PcieLevel.HOSTBRIDGE : PcieLevel.NODE;
          }
          nvlinks[i][j] = links;
          nvlinks[j][i] = links;
          levels[i][j] = level;
          levels[j][i] = level;
        }
      }
      return new ClassNode(new RandomNode(ids, nvlinks, levels, numa), classOf, classes);
    }

    /**
     * The optimum score by another route: a set's score only depends on how many devices each class
     * gives, so every vector of counts (between the class's must-include and available devices) is
     * scored from one representative pair per pair of classes.
     */
    long[] optimum(List<String> available, List<String> must, int size) {
      int[] most = new int[classes];
      int[] least = new int[classes];
      String[] member = new String[classes];
      for (String id : new TreeSet<>(available)) {
        int c = classOf[topology.index(id)];
        most[c]++;
        member[c] = id;
        if (must.contains(id)) {
          least[c]++;
        }
      }
      BruteForce score = new BruteForce(topology);
      long[][][] cross = new long[classes][classes][];
      for (int a = 0; a < classes; a++) {
        for (int b = 0; b < classes; b++) {
          cross[a][b] = pairOf(a, b, score);
        }
      }
      return best(cross, most, least, new int[classes], 0, size);
    }

    /** The score of one pair of devices of classes a and b (zero if there is no such pair). */
    private long[] pairOf(int a, int b, BruteForce score) {
      for (int i = 0; i < classOf.length; i++) {
        for (int j = 0; j < classOf.length; j++) {
          if (i != j && classOf[i] == a && classOf[j] == b) {
            return score.score(List.of(topology.ids().get(i), topology.ids().get(j)));
          }
        }
      }
      return new long[3];
    }

    private static long[] best(
        long[][][] cross, int[] most, int[] least, int[] counts, int at, int left) {
      int classes = counts.length;
      if (at == classes) {
        if (left != 0) {
          return null;
        }
        long[] total = new long[3];
        for (int a = 0; a < classes; a++) {
          add(total, cross[a][a], (long) counts[a] * (counts[a] - 1) / 2);
          for (int b = a + 1; b < classes; b++) {
            add(total, cross[a][b], (long) counts[a] * counts[b]);
          }
        }
        return total;
      }
      long[] found = null;
      for (int t = least[at]; t <= Math.min(left, most[at]); t++) {
        counts[at] = t;
        long[] s = best(cross, most, least, counts, at + 1, left - t);
        if (s != null && (found == null || BruteForce.compareScores(s, found) > 0)) {
          found = s;
        }
      }
      counts[at] = 0;
      return found;
    }

    private static void add(long[] total, long[] part, long times) {
      for (int c = 0; c < total.length; c++) {
        total[c] += part[c] * times;
      }
    }

    /** The same counts per class as {@code chosen}, each class's must-include and lowest IDs. */
    List<String> lowestPerClass(List<String> chosen, List<String> available, List<String> must) {
      int[] counts = new int[classes];
      for (String id : chosen) {
        counts[classOf[topology.index(id)]]++;
      }
      TreeSet<String> result = new TreeSet<>();
      for (String id : new TreeSet<>(must)) {
        result.add(id);
        counts[classOf[topology.index(id)]]--;
      }
      for (String id : new TreeSet<>(available)) {
        int c = classOf[topology.index(id)];
        if (!result.contains(id) && counts[c] > 0) {
          result.add(id);
          counts[c]--;
        }
      }
      return List.copyOf(result);
    }
  }
}
