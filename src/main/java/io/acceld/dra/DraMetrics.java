package io.acceld.dra;

import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The kubelet side of DRA as series. The prepared claims are read from the ledger at scrape time
 * (the ledger owns them, and restores them after a restart); the binder keeps only its timers and
 * counters.
 *
 * <ul>
 *   <li>{@code acceld_dra_prepared_claims}: claims holding devices on this node;
 *   <li>{@code acceld_dra_prepare_seconds}, {@code acceld_dra_unprepare_seconds}: per claim, with
 *       histogram buckets;
 *   <li>{@code acceld_dra_prepare_errors_total{reason}}: failed claims by {@link PrepareFailure},
 *       every reason present.
 * </ul>
 */
public final class DraMetrics implements MeterBinder {
  private final DeviceLedger ledger;
  private volatile Timer prepare;
  private volatile Timer unprepare;
  private final Map<PrepareFailure, Counter> errors = new EnumMap<>(PrepareFailure.class);

  public DraMetrics(DeviceLedger ledger) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("acceld.dra.prepared.claims", ledger, DraMetrics::preparedClaims)
        .description("DRA ResourceClaims holding devices on this node")
        .register(registry);
    prepare =
        Timer.builder("acceld.dra.prepare")
            .description("Time to prepare one ResourceClaim (read, lease, persist, CDI spec)")
            .publishPercentileHistogram()
            .register(registry);
    unprepare =
        Timer.builder("acceld.dra.unprepare")
            .description("Time to unprepare one ResourceClaim")
            .publishPercentileHistogram()
            .register(registry);
    synchronized (errors) {
      for (PrepareFailure f : PrepareFailure.values()) {
        errors.put(
            f,
            Counter.builder("acceld.dra.prepare.errors")
                .description("ResourceClaims that could not be prepared, by reason")
                .tag("reason", f.label())
                .register(registry));
      }
    }
  }

  static double preparedClaims(DeviceLedger ledger) {
    Set<String> uids = new HashSet<>();
    for (Lease l : ledger.current().leases()) {
      if (l.holder() instanceof Holder.DraClaim c) {
        uids.add(c.uid());
      }
    }
    return uids.size();
  }

  void prepared(long nanos, PrepareOutcome outcome) {
    Timer t = prepare;
    if (t != null) {
      t.record(nanos, TimeUnit.NANOSECONDS);
    }
    if (outcome instanceof PrepareOutcome.Failed f) {
      prepareFailed(f.reason());
    }
  }

  void prepareFailed(PrepareFailure reason) {
    Counter c;
    synchronized (errors) {
      c = errors.get(reason);
    }
    if (c != null) {
      c.increment();
    }
  }

  void unprepared(long nanos) {
    Timer t = unprepare;
    if (t != null) {
      t.record(nanos, TimeUnit.NANOSECONDS);
    }
  }
}
