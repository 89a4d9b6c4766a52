package io.acceld.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.inventory.PcieLevel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The N-GPU node {@code --simulate-gpus} builds: the eight-GPU node's layout, repeated. */
class FixturesTest {
  @TempDir Path root;

  /** One 64-GPU tree for the tests that only read it: writing one takes about a second. */
  @TempDir static Path shared;

  private static FixtureNode sixtyFour;

  @BeforeAll
  static void buildSixtyFour() {
    sixtyFour = Fixtures.node(shared, 64);
  }

  @Test
  void gpuUuidsAreStableDistinctAndShapedAsNvidiaPrintsThem() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 4096; i++) {
      String uuid = Fixtures.gpuUuid(i);
      assertThat(uuid)
          .matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
          .isEqualTo(Fixtures.gpuUuid(i));
      assertThat(seen.add(uuid)).as("GPU %d's UUID %s is new", i, uuid).isTrue();
    }
  }

  @Test
  void sixtyFourGpusHaveUniqueUuidsBusIdsMinorsAndDeviceNodes() {
    FixtureNode node = sixtyFour;

    List<SimulatedGpu> gpus = node.gpus();
    assertThat(gpus).hasSize(64);
    assertThat(gpus.stream().map(SimulatedGpu::uuid).distinct()).hasSize(64);
    assertThat(gpus.stream().map(SimulatedGpu::pciAddress).distinct()).hasSize(64);
    assertThat(gpus.stream().map(SimulatedGpu::minor).distinct()).hasSize(64);
    for (SimulatedGpu gpu : gpus) {
      assertThat(node.tree().sysfsRoot().resolve("bus/pci/devices/" + gpu.pciAddress())).exists();
      assertThat(node.tree().devRoot().resolve("nvidia" + gpu.minor())).exists();
    }
    assertThat(node.links()).hasSize(64 * 63 / 2);
  }

  @Test
  void nvlinkNeverLeavesAGroupOfEightAndEachGroupHasItsOwnTwoNumaNodes() {
    FixtureNode node = sixtyFour;

    for (FixtureNode.GpuLink link : node.links()) {
      boolean sameGroup = link.a() / 8 == link.b() / 8;
      if (!sameGroup) {
        assertThat(link.nvlinks()).as("%s", link).isZero();
        assertThat(link.level()).isEqualTo(PcieLevel.SYSTEM);
      }
    }
    for (int g = 0; g < 8; g++) {
      int group = g;
      // As on the eight-GPU node: two quads of NVLink-connected GPUs.
      assertThat(islandOf(node, group * 8)).hasSize(4).allMatch(gpu -> gpu / 8 == group);
      assertThat(islandOf(node, group * 8 + 4)).hasSize(4).allMatch(gpu -> gpu / 8 == group);
      Set<Integer> numa = new HashSet<>();
      for (int i = group * 8; i < group * 8 + 8; i++) {
        numa.add(node.gpus().get(i).numaNode());
      }
      assertThat(numa).containsExactlyInAnyOrder(2 * group, 2 * group + 1);
    }
  }

  @Test
  void thePcieSwitchesRepeatPerGroupWithTheEightGpuNodesPairing() {
    FixtureNode node = Fixtures.node(root, 16);

    for (FixtureNode.GpuLink link : node.links()) {
      if (link.a() / 8 == link.b() / 8) {
        assertThat(link.level()).isEqualTo(Fixtures.eightGpuLevel(link.a() % 8, link.b() % 8));
        assertThat(link.nvlinks()).isEqualTo(Fixtures.eightGpuNvlinks(link.a() % 8, link.b() % 8));
      }
    }
  }

  @Test
  void laterGroupsMirrorTheFirstInTheirOwnPciDomain() {
    FixtureNode node = Fixtures.node(root, 16);

    for (int i = 0; i < 8; i++) {
      String first = node.gpus().get(i).pciAddress();
      assertThat(first).startsWith("0000:");
      assertThat(node.gpus().get(i + 8).pciAddress()).isEqualTo("0001:" + first.substring(5));
    }
    assertThat(node.gpus().get(7).pciAddress()).isEqualTo("0000:bb:00.0");
  }

  @Test
  void aPartialLastGroupKeepsItsGpusPlaces() {
    FixtureNode node = Fixtures.node(root, 11);

    assertThat(node.gpus()).hasSize(11);
    assertThat(node.gpus().get(10).pciAddress()).startsWith("0001:");
    assertThat(islandOf(node, 8)).containsExactlyInAnyOrder(8, 9, 10);
  }

  @Test
  void theScenarioRendersEveryGpuAndPair() throws Exception {
    Path file = sixtyFour.nvmlScenario().writeTo(root.resolve("nvml"));

    List<String> lines = Files.readAllLines(file);
    assertThat(lines.stream().filter(l -> l.startsWith("gpu "))).hasSize(64);
    assertThat(lines.stream().filter(l -> l.startsWith("topo "))).hasSize(64 * 63 / 2);
  }

  @Test
  void gpuCountsOutsideOneTo256AreRefused() {
    assertThatThrownBy(() -> Fixtures.node(root, 0)).hasMessageContaining("1..256");
    assertThatThrownBy(() -> Fixtures.node(root, 257)).hasMessageContaining("1..256");
  }

  /** The GPUs reachable from {@code start} over NVLink. */
  private static Set<Integer> islandOf(FixtureNode node, int start) {
    Set<Integer> seen = new HashSet<>(Set.of(start));
    Deque<Integer> todo = new ArrayDeque<>(List.of(start));
    while (!todo.isEmpty()) {
      int gpu = todo.pop();
      for (FixtureNode.GpuLink link : node.links()) {
        if (link.nvlinks() == 0 || (link.a() != gpu && link.b() != gpu)) {
          continue;
        }
        int peer = link.a() == gpu ? link.b() : link.a();
        if (seen.add(peer)) {
          todo.push(peer);
        }
      }
    }
    return seen;
  }
}
