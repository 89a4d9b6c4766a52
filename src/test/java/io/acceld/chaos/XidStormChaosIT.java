package io.acceld.chaos;

import static io.acceld.testing.mesos.MesosCalls.framework;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.nvml.NvmlEventType;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.kubelet.DeviceState;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10: XID storms on every GPU at once, round after round. Each storm is a burst of critical
 * XIDs on all eight GPUs from eight threads; within a bound the kubelet sees every GPU Unhealthy
 * and the Mesos framework's GPU offers are rescinded; the quarantine then ends every mark and both
 * sides get the GPUs back. Throughout, a prober times Allocate (the transport's path), {@code
 * GetPreferredAllocation} and {@code /healthz}: each must answer within a bound. At the end no
 * agent thread has died and the storms left a bounded number of log lines (one per GPU per change,
 * not one per XID).
 */
class XidStormChaosIT {
  static final String GPU = ChaosNode.GPU;
  static final int ROUNDS = Integer.getInteger("acceld.xidStormRounds", 8);

  /** XIDs per GPU per storm. */
  static final int XIDS_PER_GPU = 50;

  /** Critical XIDs (none in the default ignore list). */
  static final int[] CRITICAL = {48, 63, 64, 74, 79, 92, 94, 95};

  static final Duration QUARANTINE = Duration.ofMillis(1500);
  static final Duration SEEN_WITHIN = Duration.ofSeconds(3);
  static final Duration ANSWERED_WITHIN = Duration.ofSeconds(1);
  static final Duration WAIT = Duration.ofSeconds(15);

  @TempDir Path root;
  ChaosNode node;

  @AfterEach
  void close() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void everyGpuIsMarkedAndRecoversWhileTheAgentKeepsAnswering() throws Exception {
    ChaosSeed seed = ChaosSeed.of("XidStormChaosIT");
    Random random = seed.random();
    // An agent of an earlier test in this JVM may still be stopping (its NVML event thread sits
    // out a wait of up to a second): its loops end during this test and are not this agent's.
    Set<Thread> earlier = Set.copyOf(agentLoops());
    node =
        ChaosNode.start(
            root,
            Map.of(
                "health-quarantine",
                QUARANTINE.toMillis() + "ms",
                "health-probe-interval",
                "200ms"));
    node.kubelet.awaitDevices(GPU, XidStormChaosIT::allHealthy, WAIT);
    ChaosFramework fw =
        ChaosFramework.subscribe(
            node.mesosPort(), framework("xid-storm", true), Optional.empty(), WAIT);
    awaitOfferedGpus(fw, 8, WAIT, seed.tag("before the storms"));
    List<Thread> loops = agentLoops().stream().filter(t -> !earlier.contains(t)).toList();

    Prober prober = new Prober(node);
    Thread probing = new Thread(prober, "chaos-xid-prober");
    long xidsSent = 0;
    int logLines;
    Instant started = Instant.now();
    try (LogCapture logs = LogCapture.of("io.acceld")) {
      probing.start();
      for (int round = 0; round < ROUNDS; round++) {
        String what = seed.tag("round " + round);
        Instant stormAt = Instant.now();
        xidsSent += storm(random.nextLong());
        // An event queued in an event set the agent is replacing is lost, as with real NVML: a
        // GPU still healthy after its burst gets one more XID until the kubelet sees it marked.
        kubeletAwait(
            what + ": every GPU Unhealthy to the kubelet",
            stormAt,
            l -> {
              l.stream()
                  .filter(DeviceState::healthy)
                  .forEach(d -> inject(indexOf(d.id()), CRITICAL[0]));
              return l.size() == 8 && l.stream().noneMatch(DeviceState::healthy);
            });
        awaitOfferedGpus(fw, 0, SEEN_WITHIN, what + ": GPU offers rescinded");
        assertThat(node.get("/healthz").map(HttpResponse::statusCode))
            .as(what + ": /healthz during the storm")
            .hasValue(200);
        kubeletAwait(
            what + ": every GPU Healthy again after the quarantine",
            Instant.now().plus(QUARANTINE),
            XidStormChaosIT::allHealthy);
        awaitOfferedGpus(fw, 8, WAIT, what + ": GPUs offered again");
      }
      logLines = logs.messages().size();
      prober.stop();
      probing.join(5_000);
    }
    Duration took = Duration.between(started, Instant.now());
    System.out.printf(
        "XidStormChaosIT: %d storms, %d XIDs in %d s; %d log lines; slowest answers: Allocate %d"
            + " ms, GetPreferredAllocation %d ms, /healthz %d ms over %d probes%n",
        ROUNDS,
        xidsSent,
        took.toSeconds(),
        logLines,
        prober.slowestAllocate.get() / 1_000_000,
        prober.slowestPreferred.get() / 1_000_000,
        prober.slowestHealthz.get() / 1_000_000,
        prober.probes.get());
    assertThat(prober.failure.get()).as(seed.tag("the prober")).isNull();
    assertThat(prober.probes.get()).as("probes made").isPositive();
    for (AtomicLong slowest :
        List.of(prober.slowestAllocate, prober.slowestPreferred, prober.slowestHealthz)) {
      assertThat(Duration.ofNanos(slowest.get())).isLessThan(ANSWERED_WITHIN);
    }
    // A line per GPU per change (Unhealthy, then Healthy) and a few more; never one per XID.
    assertThat(logLines)
        .as(seed.tag("log lines for " + xidsSent + " XIDs"))
        .isLessThan(ROUNDS * 8 * 4 + 40);
    assertThat(loops).as("the agent's loop threads").isNotEmpty();
    assertThat(loops.stream().filter(t -> !t.isAlive()).map(Thread::getName))
        .as(seed.tag("loop threads that ended during the storms"))
        .isEmpty();
    assertThat(node.get("/healthz").map(HttpResponse::statusCode)).hasValue(200);
  }

  /** {@link #XIDS_PER_GPU} critical XIDs on every GPU at once, one thread per GPU. */
  private long storm(long seed) throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    AtomicLong sent = new AtomicLong();
    for (int gpu = 0; gpu < 8; gpu++) {
      int index = gpu;
      Random random = new Random(seed + gpu);
      Thread t =
          new Thread(
              () -> {
                for (int i = 0; i < XIDS_PER_GPU; i++) {
                  inject(index, CRITICAL[random.nextInt(CRITICAL.length)]);
                  sent.incrementAndGet();
                }
              },
              "chaos-xid-storm-" + gpu);
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    return sent.get();
  }

  private void inject(int gpu, int xid) {
    node.nvml.control().acceld_fake_inject_event(gpu, NvmlEventType.XID_CRITICAL_ERROR, xid);
  }

  private int indexOf(String uuid) {
    for (int i = 0; i < 8; i++) {
      if (node.uuid(i).equals(uuid)) {
        return i;
      }
    }
    throw new AssertionError("not a fixture GPU: " + uuid);
  }

  private static boolean allHealthy(List<DeviceState> l) {
    return l.size() == 8 && l.stream().allMatch(DeviceState::healthy);
  }

  /**
   * Waits for the kubelet's device list to satisfy {@code condition}, {@code SEEN_WITHIN} after
   * {@code from}.
   */
  private void kubeletAwait(
      String what, Instant from, java.util.function.Predicate<List<DeviceState>> condition)
      throws InterruptedException {
    Duration left = SEEN_WITHIN.plus(Duration.between(Instant.now(), from));
    try {
      node.kubelet.awaitDevices(GPU, condition, left.isNegative() ? Duration.ofMillis(1) : left);
    } catch (AssertionError e) {
      throw new AssertionError(what + ": " + e.getMessage(), e);
    }
  }

  private static void awaitOfferedGpus(
      ChaosFramework fw, double gpus, Duration within, String what) {
    try {
      Eventually.await(
          what + " (" + gpus + " GPUs offered)",
          within,
          () -> {
            try {
              fw.pump();
              fw.declineOffersWithoutGpus();
            } catch (Exception e) {
              throw new AssertionError(e);
            }
            return fw.offeredGpus() == gpus;
          });
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + "; open offers "
              + fw.openOffers().values().stream()
                  .map(
                      o ->
                          o.getResourcesList().stream()
                              .filter(r -> r.getName().equals("gpus"))
                              .map(r -> r.getScalar().getValue())
                              .toList())
                  .toList()
              + "; events "
              + fw.events.seen().stream().map(ev -> ev.getType()).toList(),
          e);
    }
  }

  /**
   * The agent's loop threads: named {@code acceld-*} without a pool's number (the event monitor,
   * prober, discovery, ledger, kubelet and Mesos loops). Pool workers come and go by design.
   */
  private static List<Thread> agentLoops() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("acceld-") && !t.getName().matches(".*-\\d+$"))
        .filter(Thread::isAlive)
        .toList();
  }

  /**
   * Times the calls a kubelet and a liveness probe make, until stopped: Allocate of an ID no GPU
   * has (refused with INVALID_ARGUMENT, so that nothing is leased, on the same path as every
   * Allocate), GetPreferredAllocation, and {@code /healthz}.
   */
  static final class Prober implements Runnable {
    final ChaosNode node;
    final AtomicLong slowestAllocate = new AtomicLong();
    final AtomicLong slowestPreferred = new AtomicLong();
    final AtomicLong slowestHealthz = new AtomicLong();
    final AtomicLong probes = new AtomicLong();
    final AtomicReference<String> failure = new AtomicReference<>();
    private volatile boolean stopped;

    Prober(ChaosNode node) {
      this.node = node;
    }

    void stop() {
      stopped = true;
    }

    @Override
    public void run() {
      List<String> all = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        all.add(node.uuid(i));
      }
      while (!stopped) {
        long t0 = System.nanoTime();
        try {
          node.kubelet.allocateOne(GPU, List.of("GPU-not-on-this-node"));
          failure.compareAndSet(null, "an unknown ID was allocated");
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
            failure.compareAndSet(null, "Allocate answered " + e.getStatus());
          }
        } catch (IllegalStateException stopped) {
          return; // the agent is closing
        }
        long t1 = System.nanoTime();
        try {
          node.kubelet.getPreferredAllocation(GPU, all, List.of(), 2);
        } catch (StatusRuntimeException e) {
          failure.compareAndSet(null, "GetPreferredAllocation answered " + e.getStatus());
        } catch (IllegalStateException stopped) {
          return; // the agent is closing
        }
        long t2 = System.nanoTime();
        Optional<Integer> healthz = node.get("/healthz").map(HttpResponse::statusCode);
        long t3 = System.nanoTime();
        if (!healthz.equals(Optional.of(200))) {
          failure.compareAndSet(null, "/healthz answered " + healthz);
        }
        slowestAllocate.accumulateAndGet(t1 - t0, Math::max);
        slowestPreferred.accumulateAndGet(t2 - t1, Math::max);
        slowestHealthz.accumulateAndGet(t3 - t2, Math::max);
        probes.incrementAndGet();
        try {
          Thread.sleep(20); // a probe rate (as a kubelet and a liveness probe), not a wait
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }
}
