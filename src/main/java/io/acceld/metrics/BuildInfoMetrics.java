package io.acceld.metrics;

import io.acceld.util.BuildInfo;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot.InfoDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.Objects;

/**
 * {@code acceld_build_info{version,revision,java} 1}: which build runs on each node, so a fleet
 * query ({@code count by (version, revision) (acceld_build_info)}) shows a half-done rollout, and
 * any series can be joined to the build that produced it.
 *
 * <p>A Prometheus info metric rather than a Micrometer gauge: the Prometheus client treats {@code
 * _info} as a reserved suffix and would strip it from a gauge's name; as an info family it is
 * rendered as the gauge {@code acceld_build_info} in the text format and as an {@code info} in
 * OpenMetrics, which is what Prometheus expects of {@code *_info} series.
 */
final class BuildInfoMetrics implements MeterBinder, MultiCollector {
  static final String NAME = "acceld_build";

  private final InfoSnapshot snapshot;

  BuildInfoMetrics(BuildInfo build, String javaVersion) {
    Objects.requireNonNull(build, "build");
    snapshot =
        InfoSnapshot.builder()
            .name(NAME)
            .help("The running acceld build: version, git revision and Java runtime; always 1")
            .dataPoint(
                InfoDataPointSnapshot.builder()
                    .labels(
                        Labels.of(
                            "version", build.version(),
                            "revision", build.revision(),
                            "java", javaVersion))
                    .build())
            .build();
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Collectors.register(registry, this);
  }

  @Override
  public MetricSnapshots collect() {
    return MetricSnapshots.of(snapshot);
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(NAME);
  }
}
