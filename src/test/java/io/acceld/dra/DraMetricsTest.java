package io.acceld.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.testing.MutableClock;
import io.acceld.testing.TestDevices;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The DRA series as Prometheus scrapes them: names, histogram buckets, every reason present. */
class DraMetricsTest {
  @Test
  void exportsPreparedClaimsLatencyHistogramsAndErrorsByReason() {
    DeviceLedger ledger = DeviceLedger.inMemory(new MutableClock());
    Inventory inventory =
        TestDevices.inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0)));
    ledger.onChange(inventory, InventoryDiff.between(Inventory.EMPTY, inventory));
    ledger.lease(
        new Holder.DraClaim("ns", "a", "uid-a"),
        List.of(ReplicaId.whole(TestDevices.uuid(0)), ReplicaId.whole(TestDevices.uuid(1))),
        "prepare");
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    DraMetrics metrics = new DraMetrics(ledger);
    metrics.bindTo(registry);

    metrics.prepared(2_000_000, new PrepareOutcome.Prepared(List.of()));
    metrics.prepared(
        1_000_000, new PrepareOutcome.Failed(PrepareFailure.CONFLICT, "held by pod a/b/c"));
    metrics.unprepared(500_000);

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("acceld_dra_prepared_claims 1.0")
        .contains("acceld_dra_prepare_seconds_count 2")
        .contains("acceld_dra_prepare_seconds_bucket{le=")
        .contains("acceld_dra_unprepare_seconds_count 1")
        .contains("acceld_dra_prepare_errors_total{reason=\"conflict\"} 1.0")
        .contains("acceld_dra_prepare_errors_total{reason=\"not_allocated\"} 0.0");
    ledger.close();
  }
}
