package io.acceld.mesos;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.LedgerStorage;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.Eventually;
import io.acceld.testing.ProcessCleanup;
import io.acceld.testing.TestDevices;
import io.acceld.testing.mesos.BridgeOverLedger;
import io.acceld.testing.mesos.MesosCalls;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the bridge tells {@code /healthz}: a task checkpoint that cannot be written is a degraded
 * line until a write succeeds again, and a bridge that stopped is not alive.
 */
class MesosBridgeHealthTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;
  private LedgerStorage storage;
  private MesosBridge bridge;

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

  @Test
  void aFailingTaskCheckpointIsReportedUntilItIsWrittenAgain() throws Exception {
    storage = LedgerStorage.open(dir.resolve("state"), Clock.systemUTC());
    DeviceLedger ledger = storage.ledger();
    Inventory devices = TestDevices.inventory(List.of(TestDevices.nvidia(0, 0)));
    ledger.onChange(devices, InventoryDiff.between(ledger.current().inventory(), devices));
    bridge = BridgeOverLedger.start(dir, dir.resolve("state"), ledger);
    assertThat(bridge.alive()).isTrue();
    assertThat(bridge.degraded()).isEmpty();

    MesosSchedulerClient client =
        MesosSchedulerClient.of("127.0.0.1:" + bridge.port(), MediaType.JSON);
    MesosEventStream<Event> events =
        client.subscribe(
            MesosCalls.subscribe(MesosCalls.framework("health", true), Optional.empty()));
    FrameworkID id =
        events.awaitEvent(Event.Type.SUBSCRIBED, WAIT).getSubscribed().getFrameworkId();
    Map<String, String> stream = Map.of("Mesos-Stream-Id", events.streamId().orElseThrow());
    Offer offer = events.awaitEvent(Event.Type.OFFERS, WAIT).getOffers().getOffers(0);
    var task =
        MesosCalls.commandTask(
            "t-1", offer.getAgentId(), "exec sleep 300", List.of(MesosCalls.scalar("cpus", 0.1)));
    assertThat(client.call(MesosCalls.accept(id, offer, List.of(task)), stream).status())
        .isEqualTo(202);
    TaskStatus starting = events.awaitEvent(Event.Type.UPDATE, WAIT).getUpdate().getStatus();

    // The checkpoint directory becomes unusable (a file where it was; root ignores modes).
    Path tasks = dir.resolve("state/mesos/tasks");
    Path aside = dir.resolve("tasks.aside");
    Files.move(tasks, aside);
    Files.writeString(tasks, "not a directory");
    client.call(MesosCalls.acknowledge(id, starting), stream);

    Eventually.await("the checkpoint failure reported", () -> !bridge.degraded().isEmpty());
    assertThat(bridge.degraded().get(0))
        .startsWith("the Mesos task checkpoint cannot be written since ")
        .contains("task launches and status updates are refused until it can");
    assertThat(bridge.alive()).isTrue(); // a restart would not mend a disk

    Files.delete(tasks);
    Files.move(aside, tasks);
    // The lost acknowledgement left the update at the head: acknowledging it again now writes.
    assertThat(client.call(MesosCalls.acknowledge(id, starting), stream).status()).isEqualTo(202);
    Eventually.await("the degraded line gone", () -> bridge.degraded().isEmpty());

    events.close();
    bridge.close();
    assertThat(bridge.alive()).isFalse();
    bridge = null;
  }
}
