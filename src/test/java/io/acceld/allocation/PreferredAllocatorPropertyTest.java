package io.acceld.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.allocation.PreferredAllocator.Request;
import io.acceld.inventory.PcieLevel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The allocator against an independent brute force on random nodes of up to 16 devices, where it
 * must be exact. The brute force enumerates every subset with bit masks and scores with its own
 * table of PCIe weights; it shares nothing with the production code but the request semantics.
 */
class PreferredAllocatorPropertyTest {
  private static final int CASES = 400;

  /** A random node, as plain arrays; also the allocator's view of it. */
  record RandomNode(List<String> ids, int[][] nvlinks, PcieLevel[][] levels, int[] numa)
      implements AllocationTopology {

    int index(String id) {
      return ids.indexOf(id);
    }

    @Override
    public int nvlinks(String a, String b) {
      return nvlinks[index(a)][index(b)];
    }

    @Override
    public PcieLevel level(String a, String b) {
      return levels[index(a)][index(b)];
    }

    @Override
    public int numaNode(String id) {
      return numa[index(id)];
    }

    /**
     * Deliberately low-entropy: few NVLink counts, a few PCIe levels, a few NUMA nodes, so that
     * many sets tie and the tie-break is exercised as much as the score.
     */
    static RandomNode random(Random random, int count) {
      TreeSet<String> names = new TreeSet<>();
      while (names.size() < count) {
        // Unpadded numbers: string order (d10 < d2) differs from numeric order on purpose.
        names.add("d" + random.nextInt(60));
      }
      List<String> ids = new ArrayList<>(names);
      Collections.shuffle(ids, random);
      PcieLevel[] all = PcieLevel.values();
      List<PcieLevel> palette = new ArrayList<>();
      for (int p = 1 + random.nextInt(3); p > 0; p--) {
        palette.add(all[random.nextInt(all.length)]);
      }
      int nvlinkChance = random.nextInt(4); // 0: no NVLink at all
      int maxLinks = 1 + random.nextInt(6);
      int numaNodes = 1 + random.nextInt(3);
      int[][] nvlinks = new int[count][count];
      PcieLevel[][] levels = new PcieLevel[count][count];
      int[] numa = new int[count];
      for (int i = 0; i < count; i++) {
        numa[i] = random.nextInt(numaNodes + 1) - 1; // -1 is unknown
        levels[i][i] = PcieLevel.INTERNAL;
        for (int j = i + 1; j < count; j++) {
          int links = random.nextInt(4) < nvlinkChance ? 1 + random.nextInt(maxLinks) : 0;
          PcieLevel level = palette.get(random.nextInt(palette.size()));
          nvlinks[i][j] = links;
          nvlinks[j][i] = links;
          levels[i][j] = level;
          levels[j][i] = level;
        }
      }
      return new RandomNode(ids, nvlinks, levels, numa);
    }
  }

  /**
   * A request over a random node, as the searches' tests draw them: each device available with
   * chance 4/5, up to two must-includes among them (repeats allowed), any size up to what is
   * available.
   */
  record RandomRequest(List<String> available, List<String> must, int size) {
    static RandomRequest of(Random random, List<String> ids) {
      List<String> available = new ArrayList<>();
      for (String id : ids) {
        if (random.nextInt(5) > 0) {
          available.add(id);
        }
      }
      List<String> must = new ArrayList<>();
      for (int m = random.nextInt(3); m > 0 && !available.isEmpty(); m--) {
        must.add(available.get(random.nextInt(available.size())));
      }
      return new RandomRequest(available, must, 1 + random.nextInt(Math.max(1, available.size())));
    }

    Request request() {
      return Request.of(available, must, size);
    }
  }

  /** Exhaustive search with its own scoring; returns the expected answer. */
  static final class BruteForce {
    private final RandomNode node;

    BruteForce(RandomNode node) {
      this.node = node;
    }

    static int closeness(PcieLevel level) {
      switch (level) {
        case INTERNAL:
          return 60;
        case SINGLE:
          return 50;
        case MULTIPLE:
          return 40;
        case HOSTBRIDGE:
          return 30;
        case NODE:
          return 20;
        case SYSTEM:
          return 10;
        default:
          return 0;
      }
    }

    long[] score(List<String> set) {
      long[] total = new long[3];
      for (int a = 0; a < set.size(); a++) {
        for (int b = a + 1; b < set.size(); b++) {
          int i = node.index(set.get(a));
          int j = node.index(set.get(b));
          total[0] += node.nvlinks()[i][j];
          total[1] += closeness(node.levels()[i][j]);
          total[2] += node.numa()[i] >= 0 && node.numa()[i] == node.numa()[j] ? 1 : 0;
        }
      }
      return total;
    }

    static int compareScores(long[] a, long[] b) {
      for (int c = 0; c < a.length; c++) {
        if (a[c] != b[c]) {
          return Long.compare(a[c], b[c]);
        }
      }
      return 0;
    }

    static int compareLists(List<String> a, List<String> b) {
      for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
        int c = a.get(i).compareTo(b.get(i));
        if (c != 0) {
          return c;
        }
      }
      return Integer.compare(a.size(), b.size());
    }

    List<String> expected(List<String> availableInput, List<String> mustInput, int size) {
      List<String> available = new ArrayList<>(new TreeSet<>(availableInput));
      List<String> must = new ArrayList<>();
      for (String id : new TreeSet<>(mustInput)) {
        if (available.contains(id)) {
          must.add(id);
        }
      }
      if (size <= 0) {
        return List.of();
      }
      if (size >= available.size()) {
        return available;
      }
      if (must.size() >= size) {
        return must.subList(0, size);
      }
      List<String> best = null;
      long[] bestScore = null;
      for (int mask = 0; mask < 1 << available.size(); mask++) {
        if (Integer.bitCount(mask) != size) {
          continue;
        }
        List<String> set = new ArrayList<>();
        for (int b = 0; b < available.size(); b++) {
          if ((mask & 1 << b) != 0) {
            set.add(available.get(b));
          }
        }
        if (!set.containsAll(must)) {
          continue;
        }
        long[] score = score(set);
        int c = best == null ? 1 : compareScores(score, bestScore);
        if (c > 0 || (c == 0 && compareLists(set, best) < 0)) {
          best = set;
          bestScore = score;
        }
      }
      return best;
    }
  }

  @Test
  void matchesTheBruteForceOptimumAndTieBreakOnRandomNodesUpTo16Devices() {
    Random random = new Random(20_260_601L);
    Map<String, Integer> paths = new HashMap<>();
    for (int round = 0; round < CASES; round++) {
      int nodeSize = 1 + random.nextInt(18);
      RandomNode node = RandomNode.random(random, nodeSize);
      // available: a random subset of at most 16 of the node's devices, shuffled, with repeats.
      List<String> available = new ArrayList<>();
      for (String id : node.ids()) {
        if (available.size() < 16 && random.nextInt(6) > 0) {
          available.add(id);
          if (random.nextInt(8) == 0) {
            available.add(id);
          }
        }
      }
      Collections.shuffle(available, random);
      int distinct = (int) available.stream().distinct().count();
      List<String> must = new ArrayList<>();
      int mustCount = random.nextInt(3) == 0 ? 0 : random.nextInt(Math.max(1, distinct / 2 + 1));
      for (int m = 0; m < mustCount; m++) {
        must.add(node.ids().get(random.nextInt(node.ids().size()))); // may be unavailable
      }
      if (random.nextInt(10) == 0) {
        must.add("not-a-device");
      }
      int size = random.nextInt(distinct + 2); // 0 .. n+1

      List<String> actual = new PreferredAllocator(node).choose(Request.of(available, must, size));
      BruteForce bruteForce = new BruteForce(node);
      List<String> expected = bruteForce.expected(available, must, size);

      String description =
          "round %d: available=%s must=%s size=%d node=%s"
              .formatted(round, available, must, size, node.ids());
      assertThat(bruteForce.score(actual)).as(description).isEqualTo(bruteForce.score(expected));
      assertThat(actual).as(description).isEqualTo(expected);
      paths.merge(path(distinct, must, available, size), 1, Integer::sum);
    }
    // The random mix must actually reach the search, not only the short-cut rules.
    assertThat(paths.getOrDefault("search", 0)).isGreaterThan(CASES / 2);
    assertThat(paths).containsKeys("empty", "all", "must");
  }

  private static String path(int distinct, List<String> must, List<String> available, int size) {
    long mustAvailable = must.stream().filter(available::contains).distinct().count();
    if (size <= 0) {
      return "empty";
    }
    if (size >= distinct) {
      return "all";
    }
    return mustAvailable >= size ? "must" : "search";
  }
}
