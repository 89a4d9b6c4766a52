package io.acceld.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.allocation.PreferredAllocator.Request;
import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.ReplicaId;
import io.acceld.inventory.Topology;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Shared GPUs: advertised IDs {@code gpuN::k}, several per physical GPU. */
class ReplicaSpreadTest {
  private static final AllocationTopology FLAT = AllocationTopology.of(Topology.EMPTY, Map.of());

  private static List<String> replicas(int gpus, int perGpu) {
    List<String> ids = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      for (int k = 0; k < perGpu; k++) {
        ids.add(ReplicaId.of("gpu" + g, k).advertisedId());
      }
    }
    return ids;
  }

  private static List<String> choose(
      AllocationTopology topology, List<String> available, List<String> must, int size) {
    return new PreferredAllocator(topology)
        .choose(new Request(available, must, size, ReplicaId::physicalOf));
  }

  /** How many chosen IDs land on each physical GPU. */
  private static Map<String, Integer> perGpu(List<String> chosen) {
    Map<String, Integer> counts = new TreeMap<>();
    chosen.forEach(id -> counts.merge(ReplicaId.physicalOf(id), 1, Integer::sum));
    return counts;
  }

  @Test
  void twoReplicasComeFromTwoDifferentGpus() {
    List<String> chosen = choose(FLAT, replicas(4, 4), List.of(), 2);

    assertThat(chosen).containsExactly("gpu0::0", "gpu1::0");
  }

  @Test
  void everyGpuIsUsedOnceBeforeAnyIsUsedTwice() {
    List<String> available = replicas(4, 4);

    assertThat(perGpu(choose(FLAT, available, List.of(), 4)))
        .containsOnlyKeys("gpu0", "gpu1", "gpu2", "gpu3")
        .allSatisfy((gpu, count) -> assertThat(count).isOne());
    Map<String, Integer> six = perGpu(choose(FLAT, available, List.of(), 6));
    assertThat(six).containsOnlyKeys("gpu0", "gpu1", "gpu2", "gpu3");
    assertThat(six.values()).containsExactlyInAnyOrder(2, 2, 1, 1);
    Map<String, Integer> nine = perGpu(choose(FLAT, available, List.of(), 9));
    assertThat(nine.values()).containsExactlyInAnyOrder(3, 2, 2, 2);
  }

  @Test
  void theTopologyOfThePhysicalGpusStillDecides() {
    AllocationTopology pair =
        AllocationTopology.of(
            Topology.builder().put("gpu2", "gpu3", PcieLevel.SINGLE, 4).build(), Map.of());

    assertThat(choose(pair, replicas(4, 4), List.of(), 2)).containsExactly("gpu2::0", "gpu3::0");
  }

  @Test
  void amongEquallyConnectedGpusTheLessLoadedWin() {
    // Available replicas: gpu0 1, gpu1 4, gpu2 2, gpu3 3 (the rest are in use).
    List<String> available =
        List.of(
            "gpu0::3", "gpu1::0", "gpu1::1", "gpu1::2", "gpu1::3", "gpu2::1", "gpu2::2", "gpu3::0",
            "gpu3::2", "gpu3::3");

    assertThat(choose(FLAT, available, List.of(), 2)).containsExactly("gpu1::0", "gpu3::0");
    assertThat(choose(FLAT, available, List.of(), 3))
        .containsExactly("gpu1::0", "gpu2::1", "gpu3::0");
    // Beyond one per GPU, the extra goes to the GPU with the most replicas left.
    assertThat(perGpu(choose(FLAT, available, List.of(), 5)))
        .containsEntry("gpu1", 2)
        .containsEntry("gpu0", 1)
        .containsEntry("gpu2", 1)
        .containsEntry("gpu3", 1);
  }

  @Test
  void loadOnlyBreaksTiesItNeverOverridesTopology() {
    AllocationTopology pair =
        AllocationTopology.of(
            Topology.builder().put("gpu0", "gpu1", PcieLevel.SYSTEM, 1).build(), Map.of());
    List<String> available =
        List.of("gpu0::0", "gpu1::0", "gpu2::0", "gpu2::1", "gpu2::2", "gpu3::0", "gpu3::1");

    assertThat(choose(pair, available, List.of(), 2)).containsExactly("gpu0::0", "gpu1::0");
  }

  @Test
  void aMustIncludeReplicaFixesItsGpuAndTheRestGoElsewhere() {
    List<String> chosen = choose(FLAT, replicas(4, 4), List.of("gpu2::3"), 3);

    assertThat(chosen).contains("gpu2::3").hasSize(3);
    assertThat(perGpu(chosen)).containsEntry("gpu2", 1).hasSize(3);
  }

  @Test
  void twoMustIncludeReplicasOfOneGpuAreKept() {
    List<String> chosen = choose(FLAT, replicas(3, 3), List.of("gpu1::0", "gpu1::2"), 4);

    assertThat(chosen).contains("gpu1::0", "gpu1::2");
    assertThat(perGpu(chosen)).containsEntry("gpu1", 2).containsEntry("gpu0", 1).hasSize(3);
  }

  @Test
  void aMixOfSharedAndWholeGpusSpreadsOverAll() {
    List<String> available = List.of("gpu0::0", "gpu0::1", "gpu0::2", "gpu1", "gpu2");

    assertThat(choose(FLAT, available, List.of(), 3)).containsExactly("gpu0::0", "gpu1", "gpu2");
    assertThat(choose(FLAT, available, List.of(), 4))
        .containsExactly("gpu0::0", "gpu0::1", "gpu1", "gpu2");
  }

  /**
   * Invariants over random shared nodes: a subset of available, the requested size, all
   * must-includes, no GPU used twice while an available GPU is unused, and extra replicas only ever
   * go to a GPU that had at least as many left as any other.
   */
  @Test
  void randomSharedNodesKeepTheSpreadInvariants() {
    Random random = new Random(99);
    for (int round = 0; round < 300; round++) {
      int gpus = 1 + random.nextInt(10);
      Map<String, Integer> numa = new HashMap<>();
      Topology.Builder links = Topology.builder();
      List<String> available = new ArrayList<>();
      for (int g = 0; g < gpus; g++) {
        numa.put("gpu" + g, random.nextInt(2));
        for (int h = g + 1; h < gpus; h++) {
          PcieLevel level = PcieLevel.values()[random.nextInt(PcieLevel.values().length)];
          links.put("gpu" + g, "gpu" + h, level, random.nextInt(3) == 0 ? 2 : 0);
        }
        for (int k = 0; k < 4; k++) {
          if (random.nextInt(3) > 0) {
            available.add(ReplicaId.of("gpu" + g, k).advertisedId());
          }
        }
      }
      if (available.isEmpty()) {
        continue;
      }
      Collections.shuffle(available, random);
      List<String> must =
          random.nextBoolean()
              ? List.of()
              : List.of(available.get(random.nextInt(available.size())));
      int size = 1 + random.nextInt(available.size());

      List<String> chosen =
          choose(AllocationTopology.of(links.build(), numa), available, must, size);

      String description = "round %d: %s must=%s size=%d".formatted(round, available, must, size);
      assertThat(available).as(description).containsAll(chosen);
      assertThat(chosen).as(description).hasSize(size).doesNotHaveDuplicates().containsAll(must);
      Map<String, Integer> used = perGpu(chosen);
      Map<String, Integer> offered = perGpu(available);
      if (size <= offered.size()) {
        assertThat(used.values()).as(description).allSatisfy(c -> assertThat(c).isOne());
      } else {
        assertThat(used.keySet()).as(description).isEqualTo(offered.keySet());
        // A GPU used n times was never picked while another had more replicas left: so every
        // other GPU has at most n + 1 left... unless it is exhausted, i.e. leftovers are even.
        int maxLeft =
            offered.keySet().stream().mapToInt(g -> offered.get(g) - used.get(g)).max().orElse(0);
        for (String gpu : used.keySet()) {
          if (used.get(gpu) > 1) {
            int leftHere = offered.get(gpu) - used.get(gpu);
            assertThat(leftHere + 1)
                .as(description + " gpu " + gpu)
                .isGreaterThanOrEqualTo(maxLeft);
          }
        }
      }
    }
  }
}
