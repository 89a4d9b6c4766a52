package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.NvmlFaults;
import io.acceld.simulate.NvmlScenario;
import io.acceld.simulate.NvmlScenario.Gpu;
import io.acceld.simulate.NvmlScenario.Mig;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What NvmlScenario renders is what the double serves and the probe reports: the round trip that
 * simulate mode relies on. Also the telemetry getters metrics will poll.
 */
class NvmlProbeIT {
  @TempDir Path dir;

  @Test
  void scenarioRoundTripsThroughTheProbe() {
    NvmlScenario scenario =
        NvmlScenario.empty()
            .driver("535.183.01")
            .cuda(12020)
            .gpu(
                Gpu.of("GPU-aaaa", "0000:3B:00.0")
                    .name("NVIDIA A100-SXM4-80GB")
                    .minor(3)
                    .memoryBytes(85_899_345_920L)
                    .cpus("0-3,8,70-71")
                    .mig(Mig.ENABLED)
                    .computeCapability("8.0"))
            .gpu(
                Gpu.of("GPU-bbbb", "0001:af:1f.0")
                    .name("Tesla V100-SXM2-32GB")
                    .minor(0)
                    .memoryBytes(34_359_738_368L)
                    .mig(Mig.UNSUPPORTED))
            .gpu(Gpu.of("GPU-cccc", "0000:5e:00.0").mig(Mig.DISABLED).cpus("127"));

    try (Nvml nvml = NvmlDouble.create(dir, scenario).open()) {
      NvmlNodeInfo info = new NvmlProbe(nvml).probe();

      assertThat(info.driverVersion()).isEqualTo("535.183.01");
      assertThat(info.cudaVersion()).isEqualTo("12.2");
      assertThat(info.gpus())
          .containsExactly(
              new NvmlGpu(
                  0,
                  "GPU-aaaa",
                  "NVIDIA A100-SXM4-80GB",
                  3,
                  "0000:3b:00.0",
                  85_899_345_920L,
                  List.of(0, 1, 2, 3, 8, 70, 71),
                  Optional.of(true),
                  Optional.of("8.0"),
                  false),
              new NvmlGpu(
                  1,
                  "GPU-bbbb",
                  "Tesla V100-SXM2-32GB",
                  0,
                  "0001:af:1f.0",
                  34_359_738_368L,
                  List.of(),
                  Optional.empty(),
                  Optional.empty(),
                  false),
              new NvmlGpu(
                  2,
                  "GPU-cccc",
                  "Fake NVIDIA GPU",
                  2,
                  "0000:5e:00.0",
                  80L << 30,
                  List.of(127),
                  Optional.of(false),
                  Optional.empty(),
                  false));
      // no NUMA nodes given: all -1, so the double's default is NODE for every pair
      assertThat(info.links())
          .extracting(NvmlGpuLink::topologyLevel)
          .containsOnly(NvmlTopologyLevel.NODE);
    }
  }

  @Test
  void cpuAffinityCoversManyWords() {
    NvmlScenario scenario =
        NvmlScenario.empty().gpu(Gpu.of("GPU-big", "0000:01:00.0").cpus("60-70,4095"));
    try (Nvml nvml = NvmlDouble.create(dir, scenario).open()) {
      List<Integer> expected = new ArrayList<>(IntStream.rangeClosed(60, 70).boxed().toList());
      expected.add(4095);
      assertThat(nvml.cpuAffinity(nvml.deviceByIndex(0))).isEqualTo(expected);
    }
  }

  @Test
  void malformedScenarioLinesAreIgnoredNotFatal() throws Exception {
    NvmlDouble fake = NvmlDouble.create(dir, NvmlScenario.empty());
    Files.writeString(
        dir.resolve(NvmlScenario.FILE_NAME),
        String.join(
            "\n",
            "driver 550.54.15 extra-word",
            "gpu uuid=GPU-ok bus=0000:18:00.0 name=\"NVIDIA H100\" # trailing comment",
            "gpu uuid=GPU-bad bus=not-a-bus",
            "gpu uuid=GPU-unknown-key bus=0000:19:00.0 colour=green",
            "gpu uuid=\"GPU-unterminated bus=0000:1a:00.0",
            "nvlink 0 5 1",
            "topo zero one 10",
            "warp-drive engage",
            ""));
    try (Nvml nvml = fake.open()) {
      NvmlNodeInfo info = new NvmlProbe(nvml).probe();

      assertThat(info.gpus()).extracting(NvmlGpu::uuid).containsExactly("GPU-ok");
      assertThat(info.gpus().get(0).name()).isEqualTo("NVIDIA H100");
      assertThat(info.driverVersion()).isEqualTo("0.0");
    }
  }

  @Test
  void telemetryReportsScenarioValuesAndInjectedFaults() {
    NvmlScenario scenario =
        NvmlScenarios.h100s(2)
            .gpu(NvmlFaults.ecc(Gpu.of("GPU-plain", "0000:c1:00.0"), false))
            .gpu(NvmlScenarios.h100(3).mig(Mig.ENABLED));
    NvmlDouble fake = NvmlDouble.create(dir, scenario);
    try (Nvml nvml = fake.open()) {
      NvmlDevice gpu1 = nvml.deviceByIndex(1);
      NvmlDevice plain = nvml.deviceByIndex(2);
      NvmlDevice migGpu = nvml.deviceByIndex(3);

      assertThat(nvml.name(gpu1)).isEqualTo("NVIDIA H100 80GB HBM3");
      assertThat(nvml.minorNumber(gpu1)).hasValue(1);
      assertThat(nvml.temperatureCelsius(gpu1)).hasValue(41);
      assertThat(nvml.powerUsageMilliwatts(gpu1)).hasValue(300_001);
      assertThat(nvml.utilization(gpu1)).contains(new NvmlUtilization(11, 6));
      assertThat(nvml.memoryInfo(gpu1))
          .contains(
              new NvmlMemoryInfo(
                  NvmlScenarios.H100_MEMORY, 0, NvmlScenarios.H100_MEMORY - (1L << 30), 1L << 30));
      assertThat(nvml.totalEccErrors(gpu1, NvmlEccErrorType.CORRECTED, NvmlEccCounter.AGGREGATE))
          .hasValue(0);
      assertThat(nvml.retiredPagesPending(gpu1)).contains(false);

      assertThat(fake.control().acceld_fake_set_ecc(1, 7, 2)).isZero();
      assertThat(fake.control().acceld_fake_set_retired_pending(1, 1)).isZero();
      assertThat(nvml.totalEccErrors(gpu1, NvmlEccErrorType.CORRECTED, NvmlEccCounter.VOLATILE))
          .hasValue(7);
      assertThat(nvml.totalEccErrors(gpu1, NvmlEccErrorType.UNCORRECTED, NvmlEccCounter.VOLATILE))
          .hasValue(2);
      assertThat(nvml.retiredPagesPending(gpu1)).contains(true);

      // features a GPU lacks are absent, not errors
      assertThat(nvml.temperatureCelsius(plain)).isEmpty();
      assertThat(nvml.powerUsageMilliwatts(plain)).isEmpty();
      assertThat(nvml.utilization(plain)).isEmpty();
      assertThat(nvml.totalEccErrors(plain, NvmlEccErrorType.CORRECTED, NvmlEccCounter.VOLATILE))
          .isEmpty();
      assertThat(nvml.retiredPagesPending(plain)).isEmpty();
      assertThat(nvml.utilization(migGpu)).isEmpty(); // NVML: not on MIG-enabled GPUs
      assertThat(nvml.migEnabled(migGpu)).contains(true);
      assertThat(nvml.callStats().totalErrors()).isZero();
    }
  }
}
