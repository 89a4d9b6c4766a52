package io.acceld.nvml;

import static io.acceld.nvml.NvmlTopologyLevel.HOSTBRIDGE;
import static io.acceld.nvml.NvmlTopologyLevel.MULTIPLE;
import static io.acceld.nvml.NvmlTopologyLevel.NODE;
import static io.acceld.nvml.NvmlTopologyLevel.SINGLE;
import static io.acceld.nvml.NvmlTopologyLevel.SYSTEM;
import static io.acceld.testing.NvmlScenarios.pciAddress;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.NvmlScenario;
import io.acceld.simulate.NvmlScenario.Gpu;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An 8-GPU, two-socket board: the per-pair topology levels and NVLink counts that topology-aware
 * allocation will score.
 */
class NvmlTopologyIT {
  /** Explicit levels; other pairs default to NODE within a socket and SYSTEM across. */
  private static final Map<List<Integer>, Integer> LEVELS =
      Map.of(
          List.of(0, 1), SINGLE,
          List.of(2, 3), SINGLE,
          List.of(4, 5), SINGLE,
          List.of(6, 7), SINGLE,
          List.of(0, 2), MULTIPLE,
          List.of(1, 3), MULTIPLE,
          List.of(0, 3), HOSTBRIDGE,
          List.of(1, 2), HOSTBRIDGE,
          List.of(4, 6), HOSTBRIDGE,
          List.of(5, 7), MULTIPLE);

  private static final Map<List<Integer>, Integer> NVLINKS =
      Map.of(
          List.of(0, 1), 4,
          List.of(2, 3), 4,
          List.of(4, 5), 4,
          List.of(6, 7), 4,
          List.of(0, 2), 2,
          List.of(1, 3), 2,
          List.of(3, 4), 1);

  @TempDir Path dir;

  @Test
  void everyPairHasItsLevelAndNvlinkCountKeyedBySysfsAddresses() {
    try (Nvml nvml = NvmlDouble.create(dir, eightGpus()).open()) {
      NvmlNodeInfo info = new NvmlProbe(nvml).probe();

      assertThat(info.gpus())
          .extracting(NvmlGpu::pciAddress)
          .containsExactlyElementsOf(IntStream.range(0, 8).mapToObj(i -> pciAddress(i)).toList())
          .contains("0000:db:00.0"); // scenario wrote 00000000:DB:00.0
      assertThat(info.links()).containsExactlyElementsOf(expectedLinks());
    }
  }

  @Test
  void handlesCanBeFoundByEitherBusIdForm() {
    try (Nvml nvml = NvmlDouble.create(dir, eightGpus()).open()) {
      NvmlDevice byIndex = nvml.deviceByIndex(7);
      NvmlPciInfo pci = nvml.pciInfo(byIndex);

      assertThat(pci.busId()).isEqualTo("00000000:DB:00.0");
      assertThat(pci.sysfsAddress()).isEqualTo("0000:db:00.0");
      assertThat(nvml.deviceByPciBusId("0000:db:00.0")).isEqualTo(byIndex);
      assertThat(nvml.deviceByPciBusId(pci.busId())).isEqualTo(byIndex);
      assertThat(nvml.deviceByUuid(NvmlScenarios.uuid(7))).isEqualTo(byIndex);
      assertThat(nvml.index(byIndex)).isEqualTo(7);
      assertThat(nvml.topologyCommonAncestor(byIndex, byIndex))
          .isEqualTo(NvmlTopologyLevel.INTERNAL);
    }
  }

  private static NvmlScenario eightGpus() {
    NvmlScenario scenario = NvmlScenario.empty();
    for (int i = 0; i < 7; i++) {
      scenario = scenario.gpu(NvmlScenarios.h100(i));
    }
    scenario = scenario.gpu(Gpu.of(NvmlScenarios.uuid(7), "00000000:DB:00.0").numaNode(1));
    for (Map.Entry<List<Integer>, Integer> e : LEVELS.entrySet()) {
      scenario = scenario.topology(e.getKey().get(0), e.getKey().get(1), e.getValue());
    }
    for (Map.Entry<List<Integer>, Integer> e : NVLINKS.entrySet()) {
      scenario = scenario.nvlink(e.getKey().get(0), e.getKey().get(1), e.getValue());
    }
    return scenario;
  }

  private static List<NvmlGpuLink> expectedLinks() {
    List<NvmlGpuLink> links = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      for (int j = i + 1; j < 8; j++) {
        List<Integer> pair = List.of(i, j);
        int level = LEVELS.getOrDefault(pair, i / 4 == j / 4 ? NODE : SYSTEM);
        links.add(
            new NvmlGpuLink(pciAddress(i), pciAddress(j), level, NVLINKS.getOrDefault(pair, 0)));
      }
    }
    return links;
  }
}
