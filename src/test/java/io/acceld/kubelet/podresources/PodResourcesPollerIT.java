package io.acceld.kubelet.podresources;

import static io.acceld.kubelet.podresources.FakePodResources.container;
import static io.acceld.kubelet.podresources.FakePodResources.pod;
import static io.acceld.kubelet.podresources.FakePodResources.pods;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.transport.UnixGrpc;
import io.grpc.Server;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The poller against a fake kubelet pod-resources server on a real Unix socket. */
class PodResourcesPollerIT {
  private static final String GPU = "nvidia.com/gpu";
  private static final String SHARED = "nvidia.com/gpu.shared";
  private static final Duration FAST = Duration.ofMillis(20);

  @TempDir Path dir;

  private final UnixGrpc grpc = new UnixGrpc("test-podresources", 1);
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final FakePodResources kubelet = new FakePodResources();
  private Server server;
  private PodResourcesPoller poller;

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

    Eventually.await("the first poll", () -> poller.owner("GPU-a").isPresent());
    assertThat(poller.owner("GPU-a")).hasValue(new PodRef("trainer-0", "ml", "worker"));
    assertThat(poller.owner("GPU-b")).hasValue(new PodRef("trainer-0", "ml", "worker"));
    // replicas of a shared GPU point at the physical GPU, whichever form is asked for
    assertThat(poller.owner("GPU-c")).hasValue(new PodRef("notebook", "ml", "jupyter"));
    assertThat(poller.owner("GPU-c::3")).hasValue(new PodRef("notebook", "ml", "jupyter"));
    assertThat(poller.owner("GPU-idle")).isEmpty();
    assertThat(poller.owners()).containsOnlyKeys("GPU-a", "GPU-b", "GPU-c", "0000:81:00.1");
  }

  @Test
  void followsPodsComingAndGoing() throws Exception {
    kubelet.answer(pods(pod("default", "a", container("main", GPU, "GPU-a"))));
    serve();
    poller = start(FAST, Duration.ofSeconds(1));
    Eventually.await("pod a", () -> poller.owner("GPU-a").isPresent());

    kubelet.answer(pods(pod("default", "b", container("main", GPU, "GPU-b"))));

    Eventually.await("pod b replaces pod a", () -> poller.owner("GPU-b").isPresent());
    assertThat(poller.owner("GPU-a")).isEmpty();
  }

  @Test
  void aSharedGpuInSeveralPodsHasOneStableOwner() throws Exception {
    kubelet.answer(
        pods(
            pod("team-b", "z", container("main", SHARED, "GPU-s::1")),
            pod("team-a", "y", container("main", SHARED, "GPU-s::0"))));
    serve();
    poller = start(FAST, Duration.ofSeconds(1));

    Eventually.await("the first poll", () -> poller.owner("GPU-s").isPresent());
    assertThat(poller.owner("GPU-s")).hasValue(new PodRef("y", "team-a", "main"));
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

      assertThat(poller.owner("GPU-a")).isEmpty();
      kubelet.answer(pods(pod("default", "late", container("main", GPU, "GPU-a"))));
      serve();

      Eventually.await("the kubelet found", () -> poller.owner("GPU-a").isPresent());
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
      Eventually.await("recovered", () -> poller.owner("GPU-a").isPresent());
    }
  }

  @Test
  void keepsTheLastKnownOwnersThroughErrors() throws Exception {
    kubelet.answer(pods(pod("default", "p", container("main", GPU, "GPU-a"))));
    serve();
    poller = start(FAST, Duration.ofMillis(40));
    Eventually.await("the first poll", () -> poller.owner("GPU-a").isPresent());

    kubelet.fail(Status.INTERNAL);
    int failedSoFar = kubelet.calls();
    Eventually.await("two failed polls", () -> kubelet.calls() >= failedSoFar + 2);

    assertThat(poller.owner("GPU-a")).hasValue(new PodRef("p", "default", "main"));
  }

  private void serve() throws Exception {
    server = grpc.startServer(dir.resolve("kubelet.sock"), List.of(kubelet), List.of(), executor);
  }

  private PodResourcesPoller start(Duration interval, Duration maxBackoff) {
    PodResourcesPoller p =
        new PodResourcesPoller(dir.resolve("kubelet.sock"), grpc, interval, maxBackoff);
    p.start();
    return p;
  }
}
