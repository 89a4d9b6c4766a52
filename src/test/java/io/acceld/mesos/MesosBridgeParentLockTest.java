package io.acceld.mesos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.LedgerStorage;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.CgroupLeftovers;
import io.acceld.testing.Eventually;
import io.acceld.testing.ProcessCleanup;
import io.acceld.testing.TestDevices;
import io.acceld.testing.mesos.BridgeOverLedger;
import io.acceld.testing.mesos.MesosCalls;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two agents with the Mesos bridge on one host and one {@code --mesos-cgroup-parent}: the second's
 * recovery would take the first's running containers, which its own checkpoint does not know, for
 * ended ones and kill them. It is refused before it recovers anything, and starts once the first
 * has closed.
 */
class MesosBridgeParentLockTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    ProcessCleanup.killEverythingStarted();
  }

  private DeviceLedger ledger(String name) {
    LedgerStorage storage = LedgerStorage.open(dir.resolve(name), Clock.systemUTC());
    open.add(storage);
    DeviceLedger ledger = storage.ledger();
    Inventory devices = TestDevices.inventory(List.of(TestDevices.nvidia(0, 0)));
    ledger.onChange(devices, InventoryDiff.between(ledger.current().inventory(), devices));
    return ledger;
  }

  @Test
  void aSecondBridgeOnTheSameCgroupParentIsRefusedAndLeavesTheFirstsTaskAlone() throws Exception {
    MesosBridge first =
        BridgeOverLedger.start(dir.resolve("a"), dir.resolve("a/state"), ledger("a"));
    open.add(first);
    MesosSchedulerClient client =
        MesosSchedulerClient.of("127.0.0.1:" + first.port(), MediaType.JSON);
    MesosEventStream<Event> events =
        client.subscribe(
            MesosCalls.subscribe(MesosCalls.framework("lock", true), Optional.empty()));
    open.add(events);
    FrameworkID id =
        events.awaitEvent(Event.Type.SUBSCRIBED, WAIT).getSubscribed().getFrameworkId();
    Map<String, String> stream = Map.of("Mesos-Stream-Id", events.streamId().orElseThrow());
    Offer offer = events.awaitEvent(Event.Type.OFFERS, WAIT).getOffers().getOffers(0);
    var task =
        MesosCalls.commandTask(
            "t-1", offer.getAgentId(), "exec sleep 300", List.of(MesosCalls.scalar("cpus", 0.1)));
    assertThat(client.call(MesosCalls.accept(id, offer, List.of(task)), stream).status())
        .isEqualTo(202);
    Path freezer = CgroupLeftovers.processParent();
    Eventually.await("the task running in its container", () -> !runningIn(freezer).isEmpty());
    List<Path> containers = runningIn(freezer);
    assertThat(containers).as("the task's container").hasSize(1);

    assertThatThrownBy(
            () -> BridgeOverLedger.start(dir.resolve("b"), dir.resolve("b/state"), ledger("b")))
        .isInstanceOf(ContainmentUnavailableException.class)
        .hasMessageContaining("the Mesos cgroup parent '" + CgroupLeftovers.PARENT + "'")
        .hasMessageContaining("is held by another acceld on this node")
        .hasMessageContaining("--mesos-cgroup-parent");
    assertThat(Files.readString(containers.get(0).resolve("cgroup.procs")))
        .as("the first agent's task still runs in its container")
        .isNotBlank();

    first.close();
    MesosBridge second =
        BridgeOverLedger.start(dir.resolve("b"), dir.resolve("b/state"), ledger("b2"));
    open.add(second);
    assertThat(second.alive()).isTrue();
  }

  /** The containers under {@code parent} with a process in them. */
  private static List<Path> runningIn(Path parent) {
    try (var listed = Files.list(parent)) {
      return listed
          .filter(c -> Files.isRegularFile(c.resolve("cgroup.procs")))
          .filter(
              c -> {
                try {
                  return !Files.readString(c.resolve("cgroup.procs")).isBlank();
                } catch (IOException e) {
                  return false; // removed meanwhile
                }
              })
          .toList();
    } catch (IOException e) {
      return List.of(); // the parent is not made yet
    }
  }
}
