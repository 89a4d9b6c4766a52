package io.acceld.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.ReplicaId;
import io.acceld.testing.Eventually;
import io.acceld.testing.MutableClock;
import io.acceld.testing.TestDevices;
import io.acceld.testing.Waits;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DeviceLedgerTest {
  static final String A = TestDevices.uuid(0);
  static final String B = TestDevices.uuid(1);
  static final String C = TestDevices.uuid(2);

  final MutableClock clock = new MutableClock();
  final DeviceLedger ledger = DeviceLedger.inMemory(clock);
  final Holder pod = new Holder.KubeletPod("ml", "trainer", "worker");
  final Holder pending = new Holder.KubeletPending("alloc-1");
  final Holder task = new Holder.MesosTask("fw-1", "task-7");

  @BeforeEach
  void devices() {
    publish(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0), TestDevices.nvidia(2, 1));
  }

  @AfterEach
  void close() {
    ledger.close();
  }

  void publish(Device... devices) {
    Inventory next = TestDevices.inventory(List.of(devices));
    ledger.onChange(next, InventoryDiff.between(ledger.current().inventory(), next));
  }

  static List<ReplicaId> whole(String... ids) {
    return java.util.Arrays.stream(ids).map(ReplicaId::whole).toList();
  }

  @Test
  void aLeaseIsAllOrNothingAndARefusalNamesTheDeviceAndItsHolder() {
    assertThat(ledger.lease(task, whole(B), "offer O-1").granted()).isTrue();

    LeaseResult result = ledger.lease(pending, whole(A, B), "Allocate");

    assertThat(result).isInstanceOf(LeaseResult.Refused.class);
    assertThat(((LeaseResult.Refused) result).message())
        .contains("device " + B + " is held by Mesos task fw-1/task-7 since");
    assertThat(ledger.current().isLeased(A)).as("nothing was leased").isFalse();
    assertThat(ledger.current().leasesOf(B)).extracting(Lease::holder).containsExactly(task);
  }

  @Test
  void aDeviceTheKubeletHoldsIsNeverLeasedToMesos() {
    ledger.lease(pending, whole(A), "Allocate");
    assertThat(ledger.lease(task, whole(A), "offer").granted()).isFalse();

    ledger.reconcileKubelet(Map.of(ReplicaId.whole(A), (Holder.KubeletPod) pod), Duration.ZERO);
    assertThat(ledger.lease(task, whole(A), "offer").granted()).isFalse();
    assertThat(ledger.current().leasesOf(A)).extracting(Lease::holder).containsExactly(pod);
  }

  @Test
  void anyKubeletReplicaLeaseMakesTheWholeGpuUnavailableToMesos() {
    ledger.lease(pending, List.of(ReplicaId.of(A, 3)), "Allocate");

    assertThat(ledger.current().isAvailable(ledger.current().inventory().device(A).get()))
        .isFalse();
    assertThat(ledger.lease(task, whole(A), "offer").granted()).isFalse();
    // other replicas of the same GPU are still the kubelet's to give
    assertThat(
            ledger
                .lease(new Holder.KubeletPending("alloc-2"), List.of(ReplicaId.of(A, 4)), "x")
                .granted())
        .isTrue();
  }

  @Test
  void aGpuMesosHoldsHasNoReplicaForTheKubelet() {
    ledger.lease(task, whole(A), "offer");
    LeaseResult r = ledger.lease(pending, List.of(ReplicaId.of(A, 0)), "Allocate");
    assertThat(r.granted()).isFalse();
  }

  @Test
  void theKubeletReassigningASlotTakesItOverFromAnotherKubeletHolder() {
    ledger.reconcileKubelet(Map.of(ReplicaId.whole(A), (Holder.KubeletPod) pod), Duration.ZERO);

    assertThat(ledger.lease(pending, whole(A), "Allocate").granted()).isTrue();

    assertThat(ledger.current().leasesOf(A)).extracting(Lease::holder).containsExactly(pending);
  }

  @Test
  void mesosTasksNeverTakeOverEachOther() {
    ledger.lease(task, whole(A), "offer");
    assertThat(ledger.lease(new Holder.MesosTask("fw-1", "task-8"), whole(A), "o").granted())
        .isFalse();
  }

  @Test
  void unhealthyOrAbsentDevicesAreRefusedWithTheReason() {
    publish(
        TestDevices.nvidia(0, 0).withHealth(Health.UNHEALTHY, Optional.of("XID 79")),
        TestDevices.nvidia(1, 0));

    LeaseResult r = ledger.lease(task, whole(A, C), "offer");

    assertThat(((LeaseResult.Refused) r).reasons())
        .containsExactly(
            "device " + A + " is Unhealthy: XID 79",
            "device " + C + " is not present on this node");
  }

  @Test
  void aRetriedLeaseKeepsItsTimeAndReleaseIsIdempotent() {
    ledger.lease(task, whole(A), "offer");
    var first = ledger.current().leasesOf(A).get(0).since();
    clock.advance(Duration.ofSeconds(5));
    long version = ledger.current().version();

    assertThat(ledger.lease(task, whole(A), "offer").granted()).isTrue();
    assertThat(ledger.current().leasesOf(A).get(0).since()).isEqualTo(first);
    assertThat(ledger.current().version()).as("no change, no new snapshot").isEqualTo(version);

    assertThat(ledger.release(task)).hasSize(1);
    assertThat(ledger.release(task)).isEmpty();
    assertThat(ledger.current().isLeased(A)).isFalse();
  }

  @Test
  void availabilityIsPresentHealthyAndUnleased() {
    ledger.lease(task, whole(B), "offer");
    publish(
        TestDevices.nvidia(0, 0),
        TestDevices.nvidia(1, 0),
        TestDevices.nvidia(2, 1).withHealth(Health.UNHEALTHY, Optional.of("lost")));

    assertThat(ledger.current().available("nvidia.com/gpu"))
        .extracting(Device::id)
        .containsExactly(A);
  }

  @Test
  void listenersGetEachNewSnapshotEndingWithTheNewest() {
    List<Availability> seen = new CopyOnWriteArrayList<>();
    ledger.subscribe(seen::add);
    ledger.lease(task, whole(A), "offer");
    ledger.lease(pending, whole(B), "Allocate");
    long last = ledger.current().version();

    Eventually.await(
        "the newest snapshot",
        () -> !seen.isEmpty() && seen.get(seen.size() - 1).version() == last);
    for (int i = 1; i < seen.size(); i++) {
      assertThat(seen.get(i).version()).isGreaterThanOrEqualTo(seen.get(i - 1).version());
    }
    assertThat(seen.get(seen.size() - 1).leases()).hasSize(2);
  }

  /**
   * A lease change made while the ledger thread is inside one listener's delivery reaches every
   * other listener too: the delivery in progress must not hand them the snapshot it read before the
   * change and swallow the change's own wake-up. (Under load this lost a Mesos lease on its way to
   * ListAndWatch until the next change, which never came.)
   */
  @Test
  void aChangeDuringAnotherListenersDeliveryReachesEveryListener() throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    AtomicBoolean pauseNext = new AtomicBoolean();
    ledger.subscribe(
        snapshot -> {
          if (pauseNext.getAndSet(false)) {
            inside.countDown();
            try {
              resume.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
    List<Availability> second = new CopyOnWriteArrayList<>();
    ledger.subscribe(second::add);
    Eventually.await("the first snapshot", () -> second.size() == 1);

    pauseNext.set(true);
    ledger.lease(task, whole(A), "offer");
    assertThat(Waits.await(inside, Duration.ofSeconds(10))).isTrue();
    // The ledger thread is now paused in the first listener, delivering the lease of A.
    ledger.lease(pending, whole(B), "Allocate");
    resume.countDown();

    long last = ledger.current().version();
    Eventually.await(
        "the second listener to see the lease of B",
        () -> second.get(second.size() - 1).version() == last);
    assertThat(second.get(second.size() - 1).isLeased(B)).isTrue();
  }

  @Test
  void aListenerIgnoringItsOwnSideIsNotWokenByItsLeasesButSeesTheOthers() {
    List<Availability> seen = new CopyOnWriteArrayList<>();
    ledger.subscribeIgnoring(Publisher.KUBELET, seen::add);
    Eventually.await("the first snapshot", () -> seen.size() == 1);

    ledger.lease(pending, whole(A), "Allocate");
    ledger.lease(task, whole(B), "offer");

    Eventually.await("the Mesos lease", () -> seen.get(seen.size() - 1).isLeased(B));
    // it got the newest snapshot, which also holds the kubelet's lease, but no delivery of its own
    assertThat(seen).hasSizeLessThanOrEqualTo(2);
    assertThat(seen.get(seen.size() - 1).isLeased(A)).isTrue();
  }

  @Test
  void reconcileConfirmsReleasesAndExpires() {
    ledger.lease(pending, whole(A), "Allocate");
    Holder stale = new Holder.KubeletPending("alloc-old");
    ledger.lease(stale, whole(C), "Allocate");
    clock.advance(Duration.ofMinutes(3));
    ledger.lease(new Holder.KubeletPending("alloc-young"), whole(B), "Allocate");

    ledger.reconcileKubelet(
        Map.of(ReplicaId.whole(A), (Holder.KubeletPod) pod), Duration.ofMinutes(2));

    assertThat(ledger.current().leasesOf(A)).extracting(Lease::holder).containsExactly(pod);
    assertThat(ledger.current().leasesOf(B)).as("young pending lease kept").hasSize(1);
    assertThat(ledger.current().isLeased(C)).as("stale pending lease expired").isFalse();

    ledger.reconcileKubelet(Map.of(), Duration.ofMinutes(2));
    assertThat(ledger.current().isLeased(A)).as("the pod is gone").isFalse();
  }

  @Test
  void aPodTheKubeletReportsOnAMesosDeviceLeavesTheMesosLeaseInPlaceAndIsLoggedOnce() {
    ledger.lease(task, whole(A), "offer");
    try (io.acceld.testing.LogCapture logs = io.acceld.testing.LogCapture.of(DeviceLedger.class)) {
      for (int poll = 0; poll < 5; poll++) {
        ledger.reconcileKubelet(Map.of(ReplicaId.whole(A), (Holder.KubeletPod) pod), Duration.ZERO);
      }
      assertThat(logs.warnings()).singleElement().asString().contains("Mesos task fw-1/task-7");
    }
    assertThat(ledger.current().leasesOf(A)).extracting(Lease::holder).containsExactly(task);
  }

  @Test
  void restoredLeasesThatOverlapKeepTheFirst() {
    var now = clock.instant();
    DeviceLedger restored =
        new DeviceLedger(
            clock,
            LeaseStore.NONE,
            List.of(
                new Lease(ReplicaId.whole(A), task, now, "offer"),
                new Lease(ReplicaId.of(A, 1), pod, now, "Allocate")));
    assertThat(restored.current().leases()).extracting(Lease::holder).containsExactly(task);
    restored.close();
  }
}
