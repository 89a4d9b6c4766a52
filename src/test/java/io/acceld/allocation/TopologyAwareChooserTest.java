package io.acceld.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.Topology;
import io.acceld.testing.TestDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TopologyAwareChooserTest {
  private final TopologyAwareChooser chooser = new TopologyAwareChooser();

  private static List<Device> gpus(int numaOfLast) {
    List<Device> gpus = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      gpus.add(TestDevices.nvidia(i, i == 3 ? numaOfLast : 0));
    }
    return gpus;
  }

  /** GPUs 1 and 3 are NVLinked; every other pair is across the system. */
  private static Topology links(int nvlinks) {
    Topology.Builder links = Topology.builder();
    for (int i = 0; i < 4; i++) {
      for (int j = i + 1; j < 4; j++) {
        int count = i == 1 && j == 3 ? nvlinks : 0;
        links.put(TestDevices.uuid(i), TestDevices.uuid(j), PcieLevel.SYSTEM, count);
      }
    }
    return links.build();
  }

  private static List<String> ids() {
    return List.of(
        TestDevices.uuid(0), TestDevices.uuid(1), TestDevices.uuid(2), TestDevices.uuid(3));
  }

  @Test
  void choosesTheNvlinkedPairOfTheSnapshot() {
    Inventory inventory = new Inventory(gpus(0), NodeInfo.EMPTY, links(4));

    assertThat(chooser.choose(inventory, ids(), List.of(), 2))
        .containsExactly(TestDevices.uuid(1), TestDevices.uuid(3));
  }

  @Test
  void aHealthFlipKeepsTheScoreModelAndATopologyChangeReplacesIt() {
    Inventory first = new Inventory(gpus(0), NodeInfo.EMPTY, links(4));
    PreferredAllocator built = chooser.allocatorFor(first);
    Inventory unhealthy =
        first.withDevices(
            List.of(first.devices().get(0).withHealth(Health.UNHEALTHY, Optional.of("XID 79"))));
    Inventory rescanned = new Inventory(gpus(0), NodeInfo.EMPTY, links(4));

    assertThat(chooser.allocatorFor(unhealthy)).isSameAs(built);
    assertThat(chooser.allocatorFor(rescanned)).isSameAs(built);
    assertThat(chooser.allocatorFor(new Inventory(gpus(1), NodeInfo.EMPTY, links(4))))
        .isNotSameAs(built);
    Inventory relinked = new Inventory(gpus(0), NodeInfo.EMPTY, links(0));
    assertThat(chooser.allocatorFor(relinked)).isNotSameAs(built);
    // And the new model is the one answering: without the NVLink, the lowest IDs win.
    assertThat(chooser.choose(relinked, ids(), List.of(), 2))
        .containsExactly(TestDevices.uuid(0), TestDevices.uuid(1));
  }
}
