package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A driver without the optional symbols still gives a usable inventory, minus those features. */
class NvmlOldDriverIT {
  @TempDir Path dir;

  @Test
  void probeDegradesToWhatTheOldDriverCanTell() {
    NvmlDouble nvml =
        NvmlDouble.createOldDriver(
            dir, NvmlScenarios.h100s(2).topology(0, 1, NvmlTopologyLevel.SINGLE).nvlink(0, 1, 4));
    try (Nvml loaded = nvml.open()) {
      assertThat(loaded.capabilities()).isEmpty();

      NvmlNodeInfo info = new NvmlProbe(loaded).probe();

      assertThat(info.driverVersion()).isEqualTo(NvmlScenarios.DRIVER);
      assertThat(info.cudaVersion()).isEqualTo("12.4");
      assertThat(info.gpus()).hasSize(2);
      assertThat(info.gpus())
          .allSatisfy(
              gpu -> {
                assertThat(gpu.lost()).isFalse();
                assertThat(gpu.uuid()).isEqualTo(NvmlScenarios.uuid(gpu.index()));
                assertThat(gpu.memoryBytes()).isEqualTo(NvmlScenarios.H100_MEMORY);
                assertThat(gpu.migEnabled()).isEmpty();
                assertThat(gpu.computeCapability()).isEmpty();
              });
      assertThat(info.links())
          .containsExactly(
              new NvmlGpuLink(
                  NvmlScenarios.pciAddress(0),
                  NvmlScenarios.pciAddress(1),
                  NvmlTopologyLevel.SINGLE,
                  0));
      // the v1 fallbacks were used and the missing symbols never called
      assertThat(loaded.callStats().snapshot())
          .containsKeys("nvmlSystemGetCudaDriverVersion", "nvmlDeviceGetMemoryInfo")
          .doesNotContainKeys(
              "nvmlSystemGetCudaDriverVersion_v2",
              "nvmlDeviceGetMemoryInfo_v2",
              "nvmlDeviceGetNvLinkState",
              "nvmlDeviceGetMigMode");
    }
  }

  @Test
  void memoryInfoFallsBackToV1WithoutReservation() {
    NvmlDouble nvml = NvmlDouble.createOldDriver(dir, NvmlScenarios.h100s(1));
    try (Nvml loaded = nvml.open()) {
      NvmlMemoryInfo memory = loaded.memoryInfo(loaded.deviceByIndex(0)).orElseThrow();
      assertThat(memory)
          .isEqualTo(
              new NvmlMemoryInfo(
                  NvmlScenarios.H100_MEMORY, -1, NvmlScenarios.H100_MEMORY - (1L << 30), 1L << 30));
    }
  }
}
