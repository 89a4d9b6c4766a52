package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** The usual JVM dashboard series are there, under lint-clean names. */
class JvmMetricsTest {
  @Test
  void exportsMemoryGcThreadsClassesCpuAndUptime() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (JvmMetrics jvm = new JvmMetrics()) {
      jvm.bindTo(registry);

      Exposition scrape = Exposition.parse(registry.scrape());
      assertThat(scrape.series("jvm_memory_used_bytes")).isNotEmpty();
      assertThat(scrape.series("jvm_threads_live_threads")).isNotEmpty();
      assertThat(scrape.series("jvm_classes_loaded_classes")).isNotEmpty();
      assertThat(scrape.series("jvm_gc_memory_allocated_bytes_total")).isNotEmpty();
      assertThat(scrape.series("process_uptime_seconds")).isNotEmpty();
      assertThat(scrape.series("system_cpu_usage")).isNotEmpty();
      assertThat(scrape.series("process_cpu_seconds_total"))
          .singleElement()
          .satisfies(s -> assertThat(s.value()).isPositive());
      // promtool rejects these two names
      assertThat(scrape.series("process_cpu_time_ns_total")).isEmpty();
      assertThat(scrape.series("system_cpu_count")).isEmpty();
    }
  }
}
