package io.acceld.mesos;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.LedgerStorage;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.Eventually;
import io.acceld.testing.ProcessCleanup;
import io.acceld.testing.TestDevices;
import io.acceld.testing.mesos.BridgeOverLedger;
import io.acceld.testing.mesos.MesosCalls;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosSchedulerClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bridge's series in a real Prometheus registry, while a real scheduler talks to the real
 * bridge over HTTP: frameworks, offers, a rescind, a running task and its unacknowledged update,
 * resent.
 */
class MesosMetricsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;
  private LedgerStorage storage;
  private MesosBridge bridge;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @AfterEach
  void close() {
    if (bridge != null) {
      bridge.close();
    }
    if (storage != null) {
      storage.close();
    }
    ProcessCleanup.killEverythingStarted();
  }

  private double value(String name, String... tags) {
    var search = registry.find(name).tags(tags);
    if (search.gauge() != null) {
      return search.gauge().value();
    }
    return search.functionCounter().count();
  }

  @Test
  void theBridgeIsObservableFromItsSeries() throws Exception {
    storage = LedgerStorage.open(dir.resolve("state"), Clock.systemUTC());
    DeviceLedger ledger = storage.ledger();
    Inventory devices =
        TestDevices.inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0)));
    ledger.onChange(devices, InventoryDiff.between(ledger.current().inventory(), devices));
    bridge = BridgeOverLedger.start(dir, dir.resolve("state"), ledger);
    bridge.metrics().bindTo(registry);

    assertThat(value("acceld.mesos.frameworks", "state", "subscribed")).isZero();
    assertThat(value("acceld.mesos.offers.outstanding")).isZero();

    MesosSchedulerClient client =
        MesosSchedulerClient.of("127.0.0.1:" + bridge.port(), MediaType.JSON);
    FrameworkInfo info =
        MesosCalls.framework("metrics", true).toBuilder().setFailoverTimeout(600).build();
    MesosEventStream<Event> events = client.subscribe(MesosCalls.subscribe(info, Optional.empty()));
    FrameworkID id =
        events.awaitEvent(Event.Type.SUBSCRIBED, WAIT).getSubscribed().getFrameworkId();
    Offer offer = events.awaitEvent(Event.Type.OFFERS, WAIT).getOffers().getOffers(0);
    String streamId = events.streamId().orElseThrow();

    assertThat(value("acceld.mesos.frameworks", "state", "subscribed")).isEqualTo(1);
    assertThat(value("acceld.mesos.frameworks", "state", "disconnected")).isZero();
    assertThat(value("acceld.mesos.offers.outstanding")).isEqualTo(1);

    // The kubelet takes an offered GPU: the offer is rescinded and the rest offered again.
    assertThat(
            ledger
                .lease(
                    new Holder.KubeletPending("alloc-1"),
                    List.of(ReplicaId.whole(TestDevices.uuid(0))),
                    "Allocate")
                .granted())
        .isTrue();
    events.awaitEvent(Event.Type.RESCIND, WAIT);
    assertThat(value("acceld.mesos.offers.rescinded")).isEqualTo(1);
    Offer second = events.awaitEvent(Event.Type.OFFERS, WAIT).getOffers().getOffers(0);

    // A task whose updates are never acknowledged: the book holds them and resends the head.
    var task =
        MesosCalls.commandTask(
            "t-1",
            second.getAgentId(),
            "exec sleep 300",
            List.of(MesosCalls.scalar("cpus", 0.1), MesosCalls.scalar("gpus", 1)));
    assertThat(
            client
                .call(
                    MesosCalls.accept(id, second, List.of(task)),
                    java.util.Map.of("Mesos-Stream-Id", streamId))
                .status())
        .isEqualTo(202);
    Eventually.await(
        "the task running", () -> value("acceld.mesos.tasks", "state", "TASK_RUNNING") == 1.0);
    assertThat(value("acceld.mesos.offers.outstanding")).isZero();
    assertThat(value("acceld.mesos.status.updates.unacknowledged")).isGreaterThanOrEqualTo(1);
    Eventually.await(
        "an unacknowledged update resent", () -> value("acceld.mesos.status.update.retries") >= 1);

    events.close();
    Eventually.await(
        "the framework disconnected",
        () -> value("acceld.mesos.frameworks", "state", "disconnected") == 1.0);
    assertThat(value("acceld.mesos.frameworks", "state", "subscribed")).isZero();

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("acceld_mesos_frameworks{state=\"disconnected\"} 1.0")
        .contains("acceld_mesos_tasks{state=\"TASK_RUNNING\"} 1.0")
        .contains("acceld_mesos_offers_rescinded_total 1.0")
        .contains("# TYPE acceld_mesos_status_update_retries_total counter")
        .contains("# TYPE acceld_mesos_offers_outstanding gauge")
        .contains("# TYPE acceld_mesos_status_updates_unacknowledged gauge");
    assertThat(bridge.alive()).isTrue();
    assertThat(bridge.degraded()).isEmpty();
  }
}
