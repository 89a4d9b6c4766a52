package io.acceld.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.allocation.PreferredAllocator.Request;
import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.Topology;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SetScoreTest {

  @Test
  void pcieClosenessIsTheDistanceFromUnknownInNvmlUnits() {
    assertThat(SetScore.pcieCloseness(PcieLevel.INTERNAL)).isEqualTo(60);
    assertThat(SetScore.pcieCloseness(PcieLevel.SINGLE)).isEqualTo(50);
    assertThat(SetScore.pcieCloseness(PcieLevel.NODE)).isEqualTo(20);
    assertThat(SetScore.pcieCloseness(PcieLevel.SYSTEM)).isEqualTo(10);
    assertThat(SetScore.pcieCloseness(PcieLevel.UNKNOWN)).isZero();
    assertThat(SetScore.pcieCloseness(null)).isZero();
  }

  @Test
  void comparesNvlinksThenPcieThenNuma() {
    assertThat(new SetScore(1, 0, 0)).isGreaterThan(new SetScore(0, 999, 999));
    assertThat(new SetScore(0, 2, 0)).isGreaterThan(new SetScore(0, 1, 999));
    assertThat(new SetScore(0, 0, 2)).isGreaterThan(new SetScore(0, 0, 1));
    assertThat(new SetScore(3, 2, 1)).isEqualByComparingTo(new SetScore(3, 2, 1));
  }

  @Test
  void aSetScoresTheSumOverItsPairs() {
    SetScore quad = SetScore.of(List.of("gpu0", "gpu1", "gpu2", "gpu3"), Nodes.eightGpu());

    // Links 6+6+2+2; six same-socket pairs at NODE (20 each); all six pairs on NUMA 0.
    assertThat(quad).isEqualTo(new SetScore(16, 120, 6));
    assertThat(SetScore.of(List.of("gpu0"), Nodes.eightGpu())).isEqualTo(SetScore.ZERO);
  }

  @Test
  void unknownNumaNodesNeverPairAndNegativeLinkCountsAreNone() {
    assertThat(SetScore.sameNuma(-1, -1)).isZero();
    assertThat(SetScore.sameNuma(2, 2)).isOne();
    assertThat(SetScore.sameNuma(0, 1)).isZero();
    assertThat(SetScore.nvlinkCount(-4)).isZero();
  }

  /**
   * The documented NUMA choice: same-node pairs, not fewest distinct nodes. On two nodes every
   * 4-set of these six GPUs spans both nodes, so "fewest nodes" would tie and fall to the ID order,
   * giving 2+2 (g0..g3). Pair counting prefers 3+1, leaving a same-node pair free.
   */
  @Test
  void threePlusOneOnTwoNumaNodesBeatsTwoPlusTwo() {
    Map<String, Integer> numa = new HashMap<>();
    List<String> ids = Nodes.ids("g", 6);
    for (int i = 0; i < 6; i++) {
      numa.put(ids.get(i), i % 2);
    }
    AllocationTopology node = AllocationTopology.of(Topology.EMPTY, numa);

    assertThat(SetScore.of(List.of("g0", "g2", "g4", "g1"), node))
        .isGreaterThan(SetScore.of(List.of("g0", "g1", "g2", "g3"), node));
    assertThat(new PreferredAllocator(node).choose(Request.of(ids, List.of(), 4)))
        .containsExactly("g0", "g1", "g2", "g4");
  }
}
