package io.acceld.metrics;

import io.acceld.inventory.Device;
import io.acceld.ledger.Availability;
import io.acceld.ledger.CheckpointWriter;
import io.acceld.ledger.HolderKind;
import io.acceld.ledger.Lease;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The device ledger as series, read from its current snapshot at scrape time (the binder holds no
 * data):
 *
 * <ul>
 *   <li>{@code acceld_device_leased{resource,device,holder_kind}}: 1 for each leased device and the
 *       kind of its holder; a device with no lease has no series;
 *   <li>{@code acceld_ledger_leases{holder_kind}}: leases (slots) per holder kind, every kind
 *       present;
 *   <li>{@code acceld_ledger_checkpoint_writes_total}, {@code
 *       acceld_ledger_checkpoint_errors_total} and {@code
 *       acceld_ledger_checkpoint_write_duration_seconds} (count and sum).
 * </ul>
 */
public final class LedgerMetrics implements MeterBinder, MultiCollector {
  static final String DEVICE_LEASED = "acceld_device_leased";
  static final String LEASES = "acceld_ledger_leases";

  private final Supplier<Availability> ledger;
  private final Optional<CheckpointWriter> writer;

  public LedgerMetrics(Supplier<Availability> ledger, Optional<CheckpointWriter> writer) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.writer = Objects.requireNonNull(writer, "writer");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Collectors.register(registry, this);
    writer.ifPresent(
        w -> {
          FunctionCounter.builder("acceld.ledger.checkpoint.writes", w, CheckpointWriter::writes)
              .description("Lease checkpoint files written")
              .register(registry);
          FunctionCounter.builder("acceld.ledger.checkpoint.errors", w, CheckpointWriter::failures)
              .description("Lease checkpoint writes that failed (they are retried)")
              .register(registry);
          FunctionTimer.builder(
                  "acceld.ledger.checkpoint.write.duration",
                  w,
                  CheckpointWriter::writes,
                  x -> x.writeTime().toNanos(),
                  TimeUnit.NANOSECONDS)
              .description("Time spent writing the lease checkpoint (fsync included)")
              .register(registry);
        });
  }

  @Override
  public MetricSnapshots collect() {
    Availability current = ledger.get();
    GaugeSnapshot.Builder leased =
        GaugeSnapshot.builder()
            .name(DEVICE_LEASED)
            .help("1 for each leased device, labelled with the kind of its holder");
    for (Device d : current.inventory().devices()) {
      TreeSet<String> kinds = new TreeSet<>();
      for (Lease l : current.leasesOf(d.id())) {
        kinds.add(l.holder().kind().label());
      }
      for (String kind : kinds) {
        leased.dataPoint(
            GaugeDataPointSnapshot.builder()
                .labels(Labels.of("device", d.id(), "holder_kind", kind, "resource", d.resource()))
                .value(1)
                .build());
      }
    }
    GaugeSnapshot.Builder leases =
        GaugeSnapshot.builder().name(LEASES).help("Leases in the device ledger by holder kind");
    for (Map.Entry<HolderKind, Integer> e : current.countsByKind().entrySet()) {
      leases.dataPoint(
          GaugeDataPointSnapshot.builder()
              .labels(Labels.of("holder_kind", e.getKey().label()))
              .value(e.getValue())
              .build());
    }
    return MetricSnapshots.of(leased.build(), leases.build());
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(DEVICE_LEASED, LEASES);
  }
}
