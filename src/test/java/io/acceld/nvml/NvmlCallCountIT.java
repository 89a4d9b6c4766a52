package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.simulate.NvmlScenario.Gpu;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The "NVML calls and errors" metrics count exactly the calls that reach the library. */
class NvmlCallCountIT {
  @TempDir Path dir;

  @Test
  void everyCallIsCountedOnBothSides() {
    NvmlDouble fake = NvmlDouble.create(dir, NvmlScenarios.h100s(4).nvlink(0, 1, 2));
    NvmlDouble.Control control = fake.control();
    long beforeLoad = control.acceld_fake_call_count();
    Nvml nvml = fake.open();
    NvmlCallStats stats = nvml.callStats();
    assertThat(control.acceld_fake_call_count() - beforeLoad).isEqualTo(1); // nvmlInit_v2

    nvml.deviceCount();
    assertThat(control.acceld_fake_call_count() - beforeLoad).isEqualTo(2);

    new NvmlProbe(nvml).probe();
    long afterProbe = control.acceld_fake_call_count();
    assertThat(afterProbe - beforeLoad).isGreaterThan(4 * 36); // NVLink scan alone
    assertThat(stats.totalCalls()).isEqualTo(afterProbe - beforeLoad);
    // NOT_SUPPORTED/INVALID_ARGUMENT while scanning links are outcomes, not errors
    assertThat(stats.totalErrors()).isZero();

    nvml.close();
    assertThat(control.acceld_fake_call_count() - beforeLoad).isEqualTo(stats.totalCalls());
  }

  @Test
  void failedCallsCountAsErrorsPerFunction() {
    NvmlDouble fake =
        NvmlDouble.create(dir, NvmlScenarios.h100s(1).gpu(Gpu.of("GPU-x", "0000:e1:00.0")));
    try (Nvml nvml = fake.open()) {
      NvmlDevice second = nvml.deviceByIndex(1);
      fake.control().acceld_fake_set_lost(1, 1);

      assertThatThrownBy(() -> nvml.uuid(second)).isInstanceOf(NvmlException.class);
      assertThatThrownBy(() -> nvml.deviceByIndex(7)).isInstanceOf(NvmlException.class);
      nvml.uuid(nvml.deviceByIndex(0));

      assertThat(nvml.callStats().snapshot())
          .containsEntry("nvmlDeviceGetUUID", new NvmlCallStats.Counts(2, 1))
          .containsEntry("nvmlDeviceGetHandleByIndex_v2", new NvmlCallStats.Counts(3, 1));
      assertThat(nvml.callStats().totalErrors()).isEqualTo(2);
    }
  }
}
