package io.acceld.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.Topology;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AllocationTopologyTest {

  @Test
  void adaptsTheInventoryTopologySymmetrically() {
    AllocationTopology topology =
        AllocationTopology.of(
            Topology.builder().put("a", "b", PcieLevel.SINGLE, 12).build(), Map.of("a", 1));

    assertThat(topology.nvlinks("a", "b")).isEqualTo(12);
    assertThat(topology.nvlinks("b", "a")).isEqualTo(12);
    assertThat(topology.level("b", "a")).isEqualTo(PcieLevel.SINGLE);
    assertThat(topology.numaNode("a")).isEqualTo(1);
  }

  @Test
  void anythingNotRecordedIsUnknown() {
    AllocationTopology topology = AllocationTopology.of(Topology.EMPTY, Map.of());

    assertThat(topology.nvlinks("a", "c")).isZero();
    assertThat(topology.level("a", "c")).isEqualTo(PcieLevel.UNKNOWN);
    assertThat(topology.numaNode("a")).isEqualTo(-1);
  }

  @Test
  void nullsAndNegativeNumaNodesMeanUnknown() {
    Map<String, Integer> numa = new HashMap<>();
    numa.put("a", null);
    numa.put("b", -7);
    numa.put(null, 3);
    AllocationTopology topology = AllocationTopology.of(null, numa);

    assertThat(topology.numaNode("a")).isEqualTo(-1);
    assertThat(topology.numaNode("b")).isEqualTo(-1);
    assertThat(topology.level("a", "b")).isEqualTo(PcieLevel.UNKNOWN);
    assertThat(AllocationTopology.of(null, null).numaNode("a")).isEqualTo(-1);
  }

  @Test
  void aDeviceIsAsCloseAsPossibleToItselfButHasNoLinkToItself() {
    AllocationTopology topology = AllocationTopology.of(Topology.EMPTY, Map.of());

    assertThat(topology.level("a", "a")).isEqualTo(PcieLevel.INTERNAL);
    assertThat(topology.nvlinks("a", "a")).isZero();
  }
}
