package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.config.SharingPolicy;
import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Availability;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.ledger.LedgerStorage;
import io.acceld.ledger.Publisher;
import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.testing.MutableClock;
import io.acceld.testing.TestDevices;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random interleavings of everything that moves leases: the kubelet's Allocate (through the real
 * service), pod-resources answers (pods appearing and going, the socket away), Mesos leases and
 * releases through the ledger API, DRA claims of one or two devices prepared and unprepared (the
 * third publisher, leasing all of a claim's devices or none), health flips, unplugs and replugs,
 * agent restarts restoring from the checkpoint, and time passing the pending-lease TTL. After every
 * step: no device has two holders (nor two sides), availability is present ∧ healthy ∧ unleased,
 * and what the kubelet is shown matches the ledger.
 */
class LedgerPropertyTest {
  static final String GPU = "nvidia.com/gpu";
  static final int DEVICES = 6;
  static final int RUNS = 120;
  static final int STEPS = 80;
  static final Duration TTL = Duration.ofMinutes(2);

  @TempDir Path root;

  @Test
  void randomInterleavingsNeverDoubleLeaseAndKeepEveryViewTrue() throws Exception {
    for (int run = 0; run < RUNS; run++) {
      long seed = 0x5eed0000L + run;
      try {
        new Run(seed, root.resolve("run-" + run)).play();
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
      }
    }
  }

  /** One random run: its own state directory, clock, model of the kubelet and Mesos. */
  private static final class Run {
    final Random random;
    final Path state;
    final MutableClock clock = new MutableClock();
    final SharingPolicy policy;
    final Map<String, Device> plugged = new LinkedHashMap<>();
    final TreeSet<String> unplugged = new TreeSet<>();
    // What the kubelet would report through pod-resources: slot -> container.
    final Map<ReplicaId, Holder.KubeletPod> podResources = new HashMap<>();
    final List<Holder.MesosTask> tasks = new ArrayList<>();
    final List<Holder.DraClaim> claims = new ArrayList<>();
    boolean socketAbsent;
    int pods;
    LedgerStorage storage;
    DevicePluginService service;

    Run(long seed, Path dir) {
      random = new Random(seed);
      state = dir;
      policy = random.nextBoolean() ? SharingPolicy.NONE : new SharingPolicy(2, false);
      for (int i = 0; i < DEVICES; i++) {
        Device d = TestDevices.nvidia(i, i % 2);
        plugged.put(d.id(), d);
      }
    }

    DeviceLedger ledger() {
      return storage.ledger();
    }

    void open() {
      storage = LedgerStorage.open(state, clock);
      publishInventory();
      service =
          new DevicePluginService(
              view(),
              DevicePluginOptions.getDefaultInstance(),
              new AllocationResponder(Path.of("/dev"), true, Optional.empty()),
              new TopologyAwareChooser(),
              PluginEvents.NONE,
              ledger(),
              new PendingAllocations(clock));
    }

    void publishInventory() {
      Inventory next = TestDevices.inventory(List.copyOf(plugged.values()));
      ledger().onChange(next, InventoryDiff.between(ledger().current().inventory(), next));
    }

    ResourceView view() {
      return ResourceView.of(ledger().current(), GPU, policy);
    }

    void play() throws Exception {
      open();
      try {
        for (int step = 0; step < STEPS; step++) {
          step();
          service.update(view());
          check();
        }
      } finally {
        storage.close();
      }
    }

    void step() throws Exception {
      switch (random.nextInt(12)) {
        case 0, 1, 2 -> allocate();
        case 3 -> podsChange();
        case 4 -> mesosLease();
        case 5 -> mesosRelease();
        case 6 -> healthFlip();
        case 7 -> plug();
        case 8 -> restart();
        case 9 -> draPrepare();
        case 10 -> draUnprepare();
        default -> {
          clock.advance(Duration.ofSeconds(random.nextInt(90)));
          reconcile();
        }
      }
    }

    /** The kubelet picks IDs it was shown Healthy (or, now and then, a stale list). */
    void allocate() {
      List<AdvertisedDevice> shown = service.view().devices();
      List<String> ids = new ArrayList<>();
      for (AdvertisedDevice a : shown) {
        if (random.nextInt(10) == 0 || a.advertisedHealth() == Health.HEALTHY) {
          ids.add(a.kubeletId());
        }
      }
      if (ids.isEmpty()) {
        return;
      }
      java.util.Collections.shuffle(ids, random);
      List<String> chosen = ids.subList(0, 1 + random.nextInt(Math.min(2, ids.size())));
      Availability before = ledger().current();
      Capture<AllocateResponse> answer = new Capture<>();
      service.allocate(
          AllocateRequest.newBuilder()
              .addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(chosen))
              .build(),
          answer);
      if (answer.error == null) {
        for (String id : chosen) {
          ReplicaId slot = ReplicaId.parse(id);
          assertThat(before.heldAgainst(slot.deviceId(), Publisher.KUBELET))
              .as("Allocate granted %s although another side held it", id)
              .isEmpty();
          assertThat(holdersOf(ledger().current(), slot))
              .as("Allocate of %s leaves a kubelet lease", id)
              .allMatch(h -> h.publisher() == Publisher.KUBELET)
              .isNotEmpty();
          // Sometimes the pod starts and the kubelet lists it.
          if (random.nextBoolean()) {
            podResources.put(slot, new Holder.KubeletPod("ns", "pod-" + (++pods), "main"));
          }
        }
      } else {
        Status.Code code = Status.fromThrowable(answer.error).getCode();
        assertThat(code).isIn(Status.Code.FAILED_PRECONDITION, Status.Code.INVALID_ARGUMENT);
        assertThat(ledger().current().leases()).isEqualTo(before.leases());
      }
    }

    void podsChange() {
      int r = random.nextInt(3);
      if (r == 0 && !podResources.isEmpty()) {
        // a pod ends
        ReplicaId gone =
            new ArrayList<>(podResources.keySet()).get(random.nextInt(podResources.size()));
        podResources.remove(gone);
      } else if (r == 1) {
        socketAbsent = !socketAbsent;
      }
      reconcile();
    }

    void reconcile() {
      if (!socketAbsent) {
        // The kubelet only lists what it allocated; a slot another side holds is never listed.
        ledger().reconcileKubelet(Map.copyOf(podResources), TTL);
        // Drop from the model what the ledger released because Mesos won it (cannot happen in a
        // real kubelet: it never lists a device it was refused).
      }
    }

    void mesosLease() {
      List<String> all = new ArrayList<>(plugged.keySet());
      all.addAll(unplugged);
      String id = all.get(random.nextInt(all.size()));
      Availability before = ledger().current();
      Holder.MesosTask task = new Holder.MesosTask("fw", "t" + random.nextInt(1_000_000));
      boolean granted = ledger().lease(task, List.of(ReplicaId.whole(id)), "offer").granted();
      Device d = before.inventory().device(id).orElse(null);
      boolean wasAvailable = d != null && before.isAvailable(d);
      assertThat(granted)
          .as("Mesos lease of %s granted iff it was available", id)
          .isEqualTo(wasAvailable);
      if (granted) {
        tasks.add(task);
        // the kubelet never lists a device after a refused Allocate
        podResources.keySet().removeIf(s -> s.deviceId().equals(id));
      }
    }

    void mesosRelease() {
      if (!tasks.isEmpty()) {
        Holder.MesosTask t = tasks.remove(random.nextInt(tasks.size()));
        assertThat(ledger().release(t)).isNotEmpty();
        assertThat(ledger().release(t)).as("release is idempotent").isEmpty();
      }
    }

    /** A claim of one or two devices, leased whole as DRA prepare leases them: all or none. */
    void draPrepare() {
      List<String> all = new ArrayList<>(plugged.keySet());
      all.addAll(unplugged);
      java.util.Collections.shuffle(all, random);
      List<String> ids = all.subList(0, 1 + random.nextInt(2));
      Availability before = ledger().current();
      Holder.DraClaim claim =
          new Holder.DraClaim("ns", "claim-" + claims.size(), "uid-" + random.nextInt(1_000_000));
      boolean granted =
          ledger()
              .lease(claim, ids.stream().map(ReplicaId::whole).toList(), "NodePrepareResources")
              .granted();
      boolean allAvailable =
          ids.stream()
              .allMatch(id -> before.inventory().device(id).map(before::isAvailable).orElse(false));
      assertThat(granted)
          .as("DRA lease of %s granted iff all were available", ids)
          .isEqualTo(allAvailable);
      if (granted) {
        claims.add(claim);
        podResources.keySet().removeIf(s -> ids.contains(s.deviceId()));
      } else {
        assertThat(ledger().current().leases())
            .as("a refused claim leases nothing")
            .isEqualTo(before.leases());
      }
    }

    void draUnprepare() {
      if (!claims.isEmpty()) {
        Holder.DraClaim c = claims.remove(random.nextInt(claims.size()));
        assertThat(ledger().release(c)).isNotEmpty();
        assertThat(ledger().release(c)).as("unprepare is idempotent").isEmpty();
      }
    }

    void healthFlip() {
      if (plugged.isEmpty()) {
        return;
      }
      String id = new ArrayList<>(plugged.keySet()).get(random.nextInt(plugged.size()));
      Device d = plugged.get(id);
      plugged.put(
          id,
          d.isHealthy()
              ? d.withHealth(Health.UNHEALTHY, Optional.of("XID 79"))
              : d.withHealth(Health.HEALTHY, Optional.empty()));
      publishInventory();
    }

    void plug() {
      if (!unplugged.isEmpty() && random.nextBoolean()) {
        String id = unplugged.first();
        unplugged.remove(id);
        int index = Integer.parseInt(id.substring(4, 12), 16);
        plugged.put(id, TestDevices.nvidia(index, index % 2));
      } else if (!plugged.isEmpty()) {
        String id = new ArrayList<>(plugged.keySet()).get(random.nextInt(plugged.size()));
        plugged.remove(id);
        unplugged.add(id);
      }
      publishInventory();
    }

    void restart() throws Exception {
      List<Lease> before = ledger().current().leases();
      assertThat(ledger().awaitPersisted(ledger().current().version(), Duration.ofSeconds(5)))
          .isTrue();
      storage.close();
      open();
      assertThat(ledger().current().leases())
          .as("an agent restart forgets no lease")
          .containsExactlyInAnyOrderElementsOf(before);
    }

    void check() {
      Availability now = ledger().current();
      for (Device d : now.inventory().devices()) {
        List<Lease> leases = now.leasesOf(d.id());
        for (int i = 0; i < leases.size(); i++) {
          for (int j = i + 1; j < leases.size(); j++) {
            assertThat(leases.get(i).slot().overlaps(leases.get(j).slot()))
                .as("%s has two holders: %s", d.id(), leases)
                .isFalse();
          }
        }
        assertThat(leases.stream().map(l -> l.holder().publisher()).distinct().count())
            .as("%s is held by two sides: %s", d.id(), leases)
            .isLessThanOrEqualTo(1);
        assertThat(now.isAvailable(d))
            .as("availability of %s", d.id())
            .isEqualTo(d.isHealthy() && leases.isEmpty());
      }
      for (AdvertisedDevice a : service.view().devices()) {
        boolean foreign = now.heldAgainst(a.device().id(), Publisher.KUBELET).isPresent();
        Device current = now.inventory().device(a.device().id()).orElseThrow();
        assertThat(a.advertisedHealth())
            .as("what the kubelet is shown for %s", a.kubeletId())
            .isEqualTo(foreign || !current.isHealthy() ? Health.UNHEALTHY : Health.HEALTHY);
      }
    }

    static List<Holder> holdersOf(Availability a, ReplicaId slot) {
      return a.leasesOf(slot.deviceId()).stream()
          .filter(l -> l.slot().overlaps(slot))
          .map(Lease::holder)
          .toList();
    }
  }

  /** Records the one answer of a unary call. */
  static final class Capture<T> implements StreamObserver<T> {
    T value;
    Throwable error;

    @Override
    public void onNext(T v) {
      value = v;
    }

    @Override
    public void onError(Throwable t) {
      error = t;
    }

    @Override
    public void onCompleted() {}
  }
}
