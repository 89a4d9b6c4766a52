package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.LedgerStorage;
import io.acceld.testing.Eventually;
import io.acceld.testing.MutableClock;
import io.acceld.testing.TestDevices;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ledger's series, read from a real ledger and its checkpoint writer at scrape time. */
class LedgerMetricsTest {
  @TempDir Path dir;

  @Test
  void leasedDevicesCarryTheirHolderKindAndEveryKindIsCounted() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (LedgerStorage storage = LedgerStorage.open(dir, new MutableClock())) {
      DeviceLedger ledger = storage.ledger();
      new LedgerMetrics(ledger::current, Optional.of(storage.writer())).bindTo(registry);
      Inventory inventory =
          TestDevices.inventory(
              List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0), TestDevices.amd(0, 1)));
      ledger.onChange(inventory, InventoryDiff.between(Inventory.EMPTY, inventory));
      ledger.lease(
          new Holder.KubeletPending("a-1"),
          List.of(ReplicaId.of(TestDevices.uuid(0), 0), ReplicaId.of(TestDevices.uuid(0), 1)),
          "Allocate");
      ledger.lease(
          new Holder.MesosTask("fw", "t"), List.of(ReplicaId.whole("0000:41:00.0")), "offer");
      Eventually.await("written", () -> storage.writer().writes() >= 1);

      Exposition scrape = Exposition.parse(registry.scrape());

      assertThat(
              scrape.value(
                  "acceld_device_leased",
                  "device",
                  TestDevices.uuid(0),
                  "holder_kind",
                  "kubelet_pending",
                  "resource",
                  "nvidia.com/gpu"))
          .as("one series per device, however many replicas it has leased")
          .hasValue(1.0);
      assertThat(scrape.value("acceld_device_leased", "device", "0000:41:00.0")).hasValue(1.0);
      assertThat(scrape.value("acceld_device_leased", "device", TestDevices.uuid(1))).isEmpty();
      assertThat(scrape.value("acceld_ledger_leases", "holder_kind", "kubelet_pending"))
          .hasValue(2.0);
      assertThat(scrape.value("acceld_ledger_leases", "holder_kind", "mesos_task")).hasValue(1.0);
      assertThat(scrape.value("acceld_ledger_leases", "holder_kind", "kubelet_pod"))
          .as("every kind is present, so an alert can compare")
          .hasValue(0.0);
      assertThat(scrape.value("acceld_ledger_checkpoint_writes_total")).get().matches(v -> v >= 1);
      assertThat(scrape.value("acceld_ledger_checkpoint_errors_total")).hasValue(0.0);
      assertThat(scrape.series("acceld_ledger_checkpoint_write_duration_seconds_count"))
          .isNotEmpty();
    }
  }
}
