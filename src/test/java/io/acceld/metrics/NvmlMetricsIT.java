package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlCallStats;
import io.acceld.nvml.NvmlException;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NVML call and error counts per function, as the NVML double counts them. */
class NvmlMetricsIT {
  @TempDir Path dir;

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @Test
  void countsCallsAndErrorsPerFunctionAsTheyHappen() {
    NvmlDouble fake = NvmlDouble.create(dir, NvmlScenarios.h100s(2));
    try (Nvml nvml = fake.open()) {
      new NvmlMetrics(() -> Optional.of(nvml.callStats())).bindTo(registry);

      nvml.deviceCount();
      Exposition before = scrape();
      assertThat(before.value("acceld_nvml_calls_total", "function", "nvmlDeviceGetCount_v2"))
          .hasValue(1.0);
      assertThat(before.value("acceld_nvml_errors_total", "function", "nvmlDeviceGetCount_v2"))
          .hasValue(0.0);
      assertThat(before.series("acceld_nvml_calls_total"))
          .noneMatch(s -> s.labels().get("function").equals("nvmlDeviceGetUUID"));

      fake.control().acceld_fake_set_lost(1, 1);
      nvml.uuid(nvml.deviceByIndex(0));
      assertThatThrownBy(() -> nvml.uuid(nvml.deviceByIndex(1))).isInstanceOf(NvmlException.class);

      Exposition after = scrape();
      assertThat(after.value("acceld_nvml_calls_total", "function", "nvmlDeviceGetUUID"))
          .hasValue(2.0);
      assertThat(after.value("acceld_nvml_errors_total", "function", "nvmlDeviceGetUUID"))
          .hasValue(1.0);
      assertThat(after.text())
          .contains("# HELP acceld_nvml_calls_total NVML function calls")
          .contains("# TYPE acceld_nvml_errors_total counter");
    }
  }

  @Test
  void aScrapeNeverCallsNvml() {
    NvmlDouble fake = NvmlDouble.create(dir, NvmlScenarios.h100s(2));
    try (Nvml nvml = fake.open()) {
      new NvmlMetrics(() -> Optional.of(nvml.callStats())).bindTo(registry);
      long calls = fake.control().acceld_fake_call_count();

      scrape();
      scrape();

      assertThat(fake.control().acceld_fake_call_count()).isEqualTo(calls);
    }
  }

  @Test
  void withoutNvmlTheFamiliesAreAbsentAndAppearWhenItLoads() {
    AtomicReference<NvmlCallStats> stats = new AtomicReference<>();
    new NvmlMetrics(() -> Optional.ofNullable(stats.get())).bindTo(registry);

    assertThat(registry.scrape()).doesNotContain("acceld_nvml");

    try (Nvml nvml = NvmlDouble.create(dir, NvmlScenarios.h100s(1)).open()) {
      stats.set(nvml.callStats());
      assertThat(scrape().value("acceld_nvml_calls_total", "function", "nvmlInit_v2"))
          .hasValue(1.0);
    }
  }

  @Test
  void needsAPrometheusRegistry() {
    assertThatThrownBy(() -> new NvmlMetrics(Optional::empty).bindTo(new SimpleMeterRegistry()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PrometheusMeterRegistry");
  }

  private Exposition scrape() {
    return Exposition.parse(registry.scrape());
  }
}
