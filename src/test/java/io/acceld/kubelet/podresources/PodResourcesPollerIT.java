package io.acceld.kubelet.podresources;

import static io.acceld.kubelet.podresources.FakePodResources.container;
import static io.acceld.kubelet.podresources.FakePodResources.pod;
import static io.acceld.kubelet.podresources.FakePodResources.pods;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.MutableClock;
import io.acceld.testing.TestDevices;
import io.acceld.transport.UnixGrpc;
import io.grpc.Server;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The poller against a fake kubelet pod-resources server on a real Unix socket, keeping a real
 * device ledger's kubelet leases true to what the kubelet reports.
 */
class PodResourcesPollerIT {
  private static final String GPU = "nvidia.com/gpu";
  private static final String SHARED = "nvidia.com/gpu.shared";
  private static final Duration FAST = Duration.ofMillis(20);
  private static final Duration TTL = Duration.ofMinutes(2);

  @TempDir Path dir;

  private final UnixGrpc grpc = new UnixGrpc("test-podresources", 1);
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final FakePodResources kubelet = new FakePodResources();
  private Server server;
  private PodResourcesPoller poller;
  private final MutableClock clock = new MutableClock();
  private final DeviceLedger ledger = DeviceLedger.inMemory(clock);

  @AfterEach
  void stop() throws Exception {
    if (poller != null) {
      poller.close();
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    grpc.close();
    executor.shutdownNow();
    ledger.close();
  }

  /** The pod the ledger says holds {@code id} (a device, or a replica of one). */
  private Optional<Holder.KubeletPod> owner(String id) {
    ReplicaId slot = ReplicaId.parse(id);
    return ledger.current().leasesOf(slot.deviceId()).stream()
        .filter(l -> slot.isWhole() || l.slot().overlaps(slot))
        .map(Lease::holder)
        .filter(Holder.KubeletPod.class::isInstance)
        .map(Holder.KubeletPod.class::cast)
        .findFirst();
  }

  private static Holder.KubeletPod holder(String namespace, String pod, String container) {
    return new Holder.KubeletPod(namespace, pod, container);
  }

  @Test
  void mapsEachDeviceToItsPodNamespaceAndContainer() throws Exception {
    kubelet.answer(
        pods(
            pod("ml", "trainer-0", container("worker", GPU, "GPU-a", "GPU-b")),
            pod(
                "ml",
                "notebook",
                container("sidecar", "example.com/nic", "0000:81:00.1"),
                container("jupyter", SHARED, "GPU-c::0", "GPU-c::3"))));
    serve();
    poller = start(Duration.ofMillis(50), Duration.ofSeconds(1));

    Eventually.await("the first poll", () -> owner("GPU-a").isPresent());
    assertThat(owner("GPU-a")).hasValue(holder("ml", "trainer-0", "worker"));
    assertThat(owner("GPU-b")).hasValue(holder("ml", "trainer-0", "worker"));
    // replicas of a shared GPU point at the physical GPU, whichever form is asked for
    assertThat(owner("GPU-c")).hasValue(holder("ml", "notebook", "jupyter"));
    assertThat(owner("GPU-c::3")).hasValue(holder("ml", "notebook", "jupyter"));
    assertThat(owner("GPU-idle")).isEmpty();
    // the NIC belongs to another plugin's resource: not ours to lease
    assertThat(ledger.current().leases())
        .extracting(l -> l.slot().advertisedId())
        .containsExactlyInAnyOrder("GPU-a", "GPU-b", "GPU-c::0", "GPU-c::3");
  }

  @Test
  void followsPodsComingAndGoing() throws Exception {
    kubelet.answer(pods(pod("default", "a", container("main", GPU, "GPU-a"))));
    serve();
    poller = start(FAST, Duration.ofSeconds(1));
    Eventually.await("pod a", () -> owner("GPU-a").isPresent());

    kubelet.answer(pods(pod("default", "b", container("main", GPU, "GPU-b"))));

    Eventually.await("pod b replaces pod a", () -> owner("GPU-b").isPresent());
    assertThat(owner("GPU-a")).isEmpty();
  }

  @Test
  void aSharedGpuInSeveralPodsHasOneStableOwner() throws Exception {
    kubelet.answer(
        pods(
            pod("team-b", "z", container("main", SHARED, "GPU-s::1")),
            pod("team-a", "y", container("main", SHARED, "GPU-s::0"))));
    serve();
    poller = start(FAST, Duration.ofSeconds(1));

    Eventually.await("the first poll", () -> owner("GPU-s").isPresent());
    assertThat(owner("GPU-s")).hasValue(holder("team-a", "y", "main"));
  }

  @Test
  void pollsNoFasterThanTheInterval() throws Exception {
    serve();
    Duration interval = Duration.ofMillis(100);
    long start = System.nanoTime();
    poller = start(interval, Duration.ofSeconds(1));

    Eventually.await("five polls", () -> kubelet.calls() >= 5);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(interval.multipliedBy(4));
    assertThat(PodResourcesPoller.DEFAULT_INTERVAL).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void withoutASocketNothingBreaksAndThePollerPicksUpTheKubeletLater() throws Exception {
    try (LogCapture logs = LogCapture.of(PodResourcesPoller.class)) {
      poller = start(FAST, Duration.ofSeconds(1));

      assertThat(owner("GPU-a")).isEmpty();
      kubelet.answer(pods(pod("default", "late", container("main", GPU, "GPU-a"))));
      serve();

      Eventually.await("the kubelet found", () -> owner("GPU-a").isPresent());
      assertThat(logs.warnings()).isEmpty();
    }
  }

  @Test
  void errorsBackOffExponentiallyUpToTheCapAndWarnOnce() throws Exception {
    kubelet.fail(Status.UNAVAILABLE.withDescription("kubelet is restarting"));
    serve();
    try (LogCapture logs = LogCapture.of(PodResourcesPoller.class)) {
      long start = System.nanoTime();
      // waits after each failure: 20, 40, 80, 160, 160, 160 ms (doubling, capped at 160)
      poller = start(FAST, Duration.ofMillis(160));

      Eventually.await("seven calls", () -> kubelet.calls() >= 7);
      Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
      // without backoff the seventh call would come after 6 x 20 = 120 ms
      assertThat(elapsed).isGreaterThanOrEqualTo(Duration.ofMillis(620));
      assertThat(logs.warnings())
          .singleElement()
          .asString()
          .contains("Cannot list pod resources")
          .contains("UNAVAILABLE");

      // recovery resets the backoff and the data flows
      kubelet.answer(pods(pod("default", "p", container("main", GPU, "GPU-a"))));
      kubelet.fail(null);
      Eventually.await("recovered", () -> owner("GPU-a").isPresent());
    }
  }

  @Test
  void isSettledOnlyOnceTheKubeletsLeasesAreKnown() throws Exception {
    kubelet.fail(Status.UNAVAILABLE.withDescription("kubelet is restarting"));
    serve();
    poller = start(FAST, FAST);
    Eventually.await("polled and failed", () -> kubelet.calls() >= 3);
    assertThat(poller.settled()).as("settled while the kubelet fails").isFalse();

    kubelet.answer(pods());
    kubelet.fail(null);
    Eventually.await("settled once a List is reconciled", poller::settled);
  }

  @Test
  void isSettledAtOnceWithoutAKubelet() {
    poller = start(FAST, FAST);
    Eventually.await("settled: no socket, so no kubelet leases", poller::settled);
  }

  @Test
  void keepsTheLastKnownOwnersThroughErrors() throws Exception {
    kubelet.answer(pods(pod("default", "p", container("main", GPU, "GPU-a"))));
    serve();
    poller = start(FAST, Duration.ofMillis(40));
    Eventually.await("the first poll", () -> owner("GPU-a").isPresent());

    kubelet.fail(Status.INTERNAL);
    int failedSoFar = kubelet.calls();
    Eventually.await("two failed polls", () -> kubelet.calls() >= failedSoFar + 2);

    assertThat(owner("GPU-a")).hasValue(holder("default", "p", "main"));
  }

  @Test
  void aPendingLeaseIsConfirmedAsThePodThatUsesItAndKeepsItsTime() throws Exception {
    ledger.onChange(inventory(), null);
    Holder pending = new Holder.KubeletPending("alloc-1");
    Instant allocated = clock.instant();
    ledger.lease(pending, List.of(ReplicaId.whole(TestDevices.uuid(0))), "Allocate");
    clock.advance(Duration.ofSeconds(3));
    kubelet.answer(pods(pod("ml", "trainer", container("worker", GPU, TestDevices.uuid(0)))));
    serve();
    poller = start(FAST, Duration.ofSeconds(1));

    Eventually.await("confirmed", () -> owner(TestDevices.uuid(0)).isPresent());
    Lease lease = ledger.current().leasesOf(TestDevices.uuid(0)).get(0);
    assertThat(lease.holder()).isEqualTo(holder("ml", "trainer", "worker"));
    assertThat(lease.since()).isEqualTo(allocated);
    assertThat(ledger.current().leases()).hasSize(1);
  }

  @Test
  void aPendingLeaseNoPodConfirmsIsReleasedAfterTheTtlWithALogLine() throws Exception {
    ledger.onChange(inventory(), null);
    ledger.lease(
        new Holder.KubeletPending("alloc-1"),
        List.of(ReplicaId.whole(TestDevices.uuid(0))),
        "Allocate");
    serve();
    try (LogCapture logs = LogCapture.of(DeviceLedger.class)) {
      poller = start(FAST, Duration.ofSeconds(1));
      int seen = kubelet.calls();
      Eventually.await("two polls", () -> kubelet.calls() >= seen + 2);
      assertThat(ledger.current().leases()).as("young pending leases are kept").hasSize(1);

      clock.advance(TTL);
      Eventually.await("expired", () -> ledger.current().leases().isEmpty());
      assertThat(logs.warnings())
          .singleElement()
          .asString()
          .contains(TestDevices.uuid(0))
          .contains("no pod has used it");
    }
  }

  @Test
  void leasesAreKeptWhileThePodResourcesSocketIsAbsentAndReleasedWhenThePodIsGone()
      throws Exception {
    kubelet.answer(pods(pod("ml", "p", container("main", GPU, "GPU-a"))));
    serve();
    poller = start(FAST, Duration.ofSeconds(1));
    Eventually.await("leased", () -> owner("GPU-a").isPresent());

    try (LogCapture logs = LogCapture.of(PodResourcesPoller.class)) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      java.nio.file.Files.deleteIfExists(dir.resolve("kubelet.sock"));
      clock.advance(Duration.ofHours(1));
      Eventually.await(
          "the poller sees the socket gone",
          () -> logs.messages().stream().anyMatch(m -> m.contains("is gone")));
    }
    assertThat(owner("GPU-a")).hasValue(holder("ml", "p", "main"));

    kubelet.answer(pods());
    serve();
    Eventually.await(
        "released once the kubelet says the pod is gone", () -> owner("GPU-a").isEmpty());
  }

  private static io.acceld.inventory.Inventory inventory() {
    return TestDevices.inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0)));
  }

  private void serve() throws Exception {
    server = grpc.startServer(dir.resolve("kubelet.sock"), List.of(kubelet), List.of(), executor);
  }

  private PodResourcesPoller start(Duration interval, Duration maxBackoff) {
    PodResourcesPoller p =
        new PodResourcesPoller(
            dir.resolve("kubelet.sock"),
            grpc,
            ledger,
            name -> name.equals(GPU) || name.equals(SHARED),
            TTL,
            interval,
            maxBackoff);
    p.start();
    return p;
  }
}
