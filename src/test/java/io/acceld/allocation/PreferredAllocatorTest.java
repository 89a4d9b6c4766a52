package io.acceld.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.allocation.PreferredAllocator.Request;
import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.Topology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class PreferredAllocatorTest {

  private static List<String> choose(
      AllocationTopology topology, List<String> available, List<String> must, int size) {
    return new PreferredAllocator(topology).choose(Request.of(available, must, size));
  }

  @Nested
  class OnAnEightGpuNvlinkNode {
    private final AllocationTopology node = Nodes.eightGpu();
    private final List<String> all = Nodes.ids("gpu", 8);

    @Test
    void twoGpusAreASixLinkPairTheLowestIdsOnTies() {
      List<String> chosen = choose(node, all, List.of(), 2);

      assertThat(chosen)
          .isIn(
              List.of("gpu0", "gpu1"),
              List.of("gpu2", "gpu3"),
              List.of("gpu4", "gpu5"),
              List.of("gpu6", "gpu7"));
      assertThat(chosen).containsExactly("gpu0", "gpu1");
    }

    @Test
    void fourGpusAreOneSocketsQuad() {
      assertThat(choose(node, all, List.of(), 4)).containsExactly("gpu0", "gpu1", "gpu2", "gpu3");
    }

    @Test
    void fourGpusTakeTheOtherQuadWhenOneGpuOfTheFirstIsBusy() {
      List<String> available = all.subList(1, 8);

      assertThat(choose(node, available, List.of(), 4))
          .containsExactly("gpu4", "gpu5", "gpu6", "gpu7");
    }

    @Test
    void mustIncludeGpu5WithSizeTwoGivesItsNvlinkPeer() {
      assertThat(choose(node, all, List.of("gpu5"), 2)).containsExactly("gpu4", "gpu5");
    }

    @Test
    void mustIncludeAcrossSocketsKeepsBothAndAddsTheBestPeers() {
      // gpu0 and gpu4 are forced; gpu1 (6 links to gpu0) and gpu5 (6 links to gpu4) tie on
      // links with gpu2/gpu6 at 2; the six-link peers win.
      assertThat(choose(node, all, List.of("gpu4", "gpu0"), 4))
          .containsExactly("gpu0", "gpu1", "gpu4", "gpu5");
    }

    @Test
    void sixGpusKeepTheQuadAndAddASixLinkPair() {
      assertThat(choose(node, all, List.of(), 6))
          .containsExactly("gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5");
    }
  }

  @Nested
  class WithoutNvlinks {

    /** Six GPUs: (g4,g5) behind one switch, (g2,g3) same socket, (g0,g1) across; rest unknown. */
    private final AllocationTopology node =
        AllocationTopology.of(
            Topology.builder()
                .put("g4", "g5", PcieLevel.SINGLE, 0)
                .put("g2", "g3", PcieLevel.NODE, 0)
                .put("g0", "g1", PcieLevel.SYSTEM, 0)
                .build(),
            Map.of());

    @Test
    void aSingleSwitchPairBeatsSameSocketBeatsCrossSocket() {
      List<String> all = Nodes.ids("g", 6);

      assertThat(choose(node, all, List.of(), 2)).containsExactly("g4", "g5");
      assertThat(choose(node, List.of("g0", "g1", "g2", "g3", "g5"), List.of(), 2))
          .containsExactly("g2", "g3");
      assertThat(choose(node, List.of("g0", "g1", "g3", "g5"), List.of(), 2))
          .containsExactly("g0", "g1");
    }

    @Test
    void withEqualPcieTheSameNumaPairWins() {
      Topology.Builder links = Topology.builder();
      List<String> ids = Nodes.ids("g", 4);
      for (int i = 0; i < 4; i++) {
        for (int j = i + 1; j < 4; j++) {
          links.put(ids.get(i), ids.get(j), PcieLevel.HOSTBRIDGE, 0);
        }
      }
      AllocationTopology sameLevel =
          AllocationTopology.of(links.build(), Map.of("g0", 1, "g1", 0, "g2", 1, "g3", 0));

      assertThat(choose(sameLevel, ids, List.of(), 2)).containsExactly("g0", "g2");
    }

    @Test
    void anUnknownNumaNodeNeverCountsAsShared() {
      AllocationTopology unknownNuma =
          AllocationTopology.of(Topology.EMPTY, Map.of("g0", -1, "g1", -1, "g2", 3, "g3", 3));

      assertThat(choose(unknownNuma, Nodes.ids("g", 4), List.of(), 2)).containsExactly("g2", "g3");
    }
  }

  @Nested
  class Priorities {

    @Test
    void oneNvlinkAcrossSocketsBeatsTheClosestPcieWithout() {
      AllocationTopology node =
          AllocationTopology.of(
              Topology.builder()
                  .put("a", "b", PcieLevel.INTERNAL, 0)
                  .put("c", "d", PcieLevel.SYSTEM, 1)
                  .build(),
              Map.of("a", 0, "b", 0, "c", 0, "d", 1));

      assertThat(choose(node, List.of("a", "b", "c", "d"), List.of(), 2)).containsExactly("c", "d");
    }

    @Test
    void closerPcieBeatsSameNuma() {
      AllocationTopology node =
          AllocationTopology.of(
              Topology.builder()
                  .put("a", "b", PcieLevel.SYSTEM, 0)
                  .put("c", "d", PcieLevel.NODE, 0)
                  .build(),
              Map.of("a", 0, "b", 0, "c", 0, "d", 1));

      assertThat(choose(node, List.of("a", "b", "c", "d"), List.of(), 2)).containsExactly("c", "d");
    }
  }

  @Nested
  class KubeletInput {
    private final AllocationTopology node = Nodes.eightGpu();
    private final List<String> all = Nodes.ids("gpu", 8);

    @Test
    void sizeZeroOrNegativeIsEmpty() {
      assertThat(choose(node, all, List.of("gpu1"), 0)).isEmpty();
      assertThat(choose(node, all, List.of("gpu1"), -3)).isEmpty();
    }

    @Test
    void sizeAtLeastAvailableIsEverythingSorted() {
      List<String> shuffled = List.of("gpu7", "gpu2", "gpu5");

      assertThat(choose(node, shuffled, List.of(), 3)).containsExactly("gpu2", "gpu5", "gpu7");
      assertThat(choose(node, shuffled, List.of(), 99)).containsExactly("gpu2", "gpu5", "gpu7");
    }

    @Test
    void moreMustIncludeThanSizeGivesTheFirstSortedOnes() {
      assertThat(choose(node, all, List.of("gpu6", "gpu3", "gpu0"), 2))
          .containsExactly("gpu0", "gpu3");
    }

    @Test
    void mustIncludeOutsideAvailableIsIgnored() {
      List<String> chosen = choose(node, all.subList(2, 8), List.of("gpu0", "gpu9", "gpu5"), 2);

      assertThat(chosen).containsExactly("gpu4", "gpu5");
    }

    @Test
    void mustIncludeThatIsOnlyGhostsBehavesAsNoMustInclude() {
      assertThat(choose(node, all, List.of("ghost", "gpu42"), 2)).containsExactly("gpu0", "gpu1");
    }

    @Test
    void duplicatesCollapse() {
      List<String> available = List.of("gpu4", "gpu5", "gpu4", "gpu6", "gpu5", "gpu6");

      assertThat(choose(node, available, List.of("gpu5", "gpu5"), 2))
          .containsExactly("gpu4", "gpu5");
      // Three distinct IDs despite six entries: size 3 means all of them, once each.
      assertThat(choose(node, available, List.of(), 3)).containsExactly("gpu4", "gpu5", "gpu6");
    }

    @Test
    void nullsAreNothing() {
      List<String> withNull = new ArrayList<>(all);
      withNull.add(null);
      List<String> mustWithNull = Arrays.asList(null, "gpu5");
      PreferredAllocator allocator = new PreferredAllocator(node);

      assertThat(allocator.choose(new Request(withNull, mustWithNull, 2, null)))
          .containsExactly("gpu4", "gpu5");
      assertThat(allocator.choose(new Request(null, null, 2, null))).isEmpty();
    }

    @Test
    void idsTheTopologyDoesNotKnowAreStillChosenWhenNeeded() {
      assertThat(choose(node, List.of("gpu0", "stranger", "gpu1"), List.of(), 2))
          .containsExactly("gpu0", "gpu1");
      assertThat(choose(node, List.of("gpu0", "stranger", "other"), List.of(), 2))
          .containsExactly("gpu0", "other");
    }

    @Test
    void aMappingThatReturnsNullMeansTheIdIsItsOwnDevice() {
      Request request = new Request(all, List.of("gpu5"), 2, id -> null);

      assertThat(new PreferredAllocator(node).choose(request)).containsExactly("gpu4", "gpu5");
    }

    @Test
    void theResultIsAlwaysASortedDistinctSubsetOfAvailable() {
      Random random = new Random(7);
      PreferredAllocator allocator = new PreferredAllocator(Nodes.islands(24));
      List<String> ids = Nodes.paddedIds(24);
      for (int round = 0; round < 200; round++) {
        List<String> available = new ArrayList<>();
        for (String id : ids) {
          if (random.nextInt(3) > 0) {
            available.add(id);
          }
          if (random.nextInt(6) == 0) {
            available.add(id);
          }
        }
        List<String> must = new ArrayList<>();
        for (int m = random.nextInt(4); m > 0; m--) {
          must.add(ids.get(random.nextInt(ids.size())));
        }
        int size = random.nextInt(available.size() + 3) - 1;

        List<String> chosen = allocator.choose(Request.of(available, must, size));

        assertThat(available).containsAll(chosen);
        assertThat(chosen).doesNotHaveDuplicates().isSorted();
        long distinct = available.stream().distinct().count();
        assertThat(chosen).hasSize((int) Math.max(0, Math.min(size, distinct)));
        if (size > 0) {
          must.stream()
              .filter(available::contains)
              .distinct()
              .sorted()
              .limit(size)
              .forEach(id -> assertThat(chosen).contains(id));
        }
      }
    }
  }

  @Nested
  class Determinism {

    @Test
    void shuffledInputGivesTheSameAnswer() {
      PreferredAllocator small = new PreferredAllocator(Nodes.eightGpu());
      PreferredAllocator large = new PreferredAllocator(Nodes.islands(64));
      List<String> eight = new ArrayList<>(Nodes.ids("gpu", 8));
      List<String> sixtyFour = new ArrayList<>(Nodes.paddedIds(64));
      // Leave holes so the answer is not simply the first island.
      sixtyFour.removeAll(List.of("gpu01", "gpu09", "gpu17", "gpu40"));
      List<String> expectedSmall = small.choose(Request.of(eight, List.of("gpu6"), 3));
      List<String> expectedLarge = large.choose(Request.of(sixtyFour, List.of("gpu33"), 8));
      Random random = new Random(11);

      for (int round = 0; round < 25; round++) {
        Collections.shuffle(eight, random);
        Collections.shuffle(sixtyFour, random);

        assertThat(small.choose(Request.of(eight, List.of("gpu6"), 3))).isEqualTo(expectedSmall);
        assertThat(large.choose(Request.of(sixtyFour, List.of("gpu33"), 8)))
            .isEqualTo(expectedLarge);
      }
    }
  }

  @Nested
  class SixtyFourDevices {
    private final PreferredAllocator allocator = new PreferredAllocator(Nodes.islands(64));
    private final List<String> all = Nodes.paddedIds(64);

    @Test
    void eightDevicesAreOneWholeIsland() {
      assertThat(allocator.choose(Request.of(all, List.of(), 8))).isEqualTo(all.subList(0, 8));
    }

    @Test
    void aMustIncludeDevicePullsInItsIsland() {
      assertThat(allocator.choose(Request.of(all, List.of("gpu45"), 8)))
          .isEqualTo(all.subList(40, 48));
    }

    @Test
    void withTheFirstIslandBrokenTheNextWholeIslandWins() {
      List<String> available = new ArrayList<>(all);
      available.remove("gpu03");

      assertThat(allocator.choose(Request.of(available, List.of(), 8)))
          .isEqualTo(all.subList(8, 16));
    }

    @Test
    void fourDevicesAreTwoSwitchPairsOfOneIsland() {
      assertThat(allocator.choose(Request.of(all, List.of(), 4))).isEqualTo(all.subList(0, 4));
    }
  }
}
