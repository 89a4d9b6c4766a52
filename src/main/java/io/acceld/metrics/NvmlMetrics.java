package io.acceld.metrics;

import io.acceld.nvml.NvmlCallStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * NVML calls and errors per C function, {@code acceld_nvml_calls_total{function}} and {@code
 * acceld_nvml_errors_total{function}}, read from the library's {@link NvmlCallStats} at scrape
 * time.
 *
 * <p>A collector rather than Micrometer counters because functions appear as the agent first calls
 * them, and the stats already count: a scrape only reads them (it never calls NVML). The supplier
 * is empty while NVML is not loaded; then the families are absent. Needs a {@link
 * PrometheusMeterRegistry}: it registers on the underlying Prometheus registry.
 */
public final class NvmlMetrics implements MeterBinder, MultiCollector {
  static final String CALLS = "acceld_nvml_calls";
  static final String ERRORS = "acceld_nvml_errors";

  private final Supplier<Optional<NvmlCallStats>> stats;

  public NvmlMetrics(Supplier<Optional<NvmlCallStats>> stats) {
    this.stats = Objects.requireNonNull(stats, "stats");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Collectors.register(registry, this);
  }

  @Override
  public MetricSnapshots collect() {
    Optional<NvmlCallStats> current = stats.get();
    if (current.isEmpty()) {
      return MetricSnapshots.of();
    }
    Map<String, NvmlCallStats.Counts> snapshot = current.get().snapshot();
    CounterSnapshot.Builder calls =
        CounterSnapshot.builder().name(CALLS).help("NVML function calls since the library loaded");
    CounterSnapshot.Builder errors =
        CounterSnapshot.builder()
            .name(ERRORS)
            .help("NVML function calls that failed (NOT_SUPPORTED for optional data is no error)");
    snapshot.forEach(
        (function, counts) -> {
          Labels labels = Labels.of("function", function);
          calls.dataPoint(
              CounterDataPointSnapshot.builder().labels(labels).value(counts.calls()).build());
          errors.dataPoint(
              CounterDataPointSnapshot.builder().labels(labels).value(counts.errors()).build());
        });
    return MetricSnapshots.of(calls.build(), errors.build());
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(CALLS, ERRORS);
  }
}
