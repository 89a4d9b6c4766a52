package io.acceld.kubelet.podresources;

import io.acceld.ledger.DeviceLedger;
import io.acceld.proto.podresources.v1.ListPodResourcesRequest;
import io.acceld.proto.podresources.v1.ListPodResourcesResponse;
import io.acceld.proto.podresources.v1.PodResourcesListerGrpc;
import io.acceld.transport.UnixGrpc;
import io.acceld.util.Backoff;
import io.acceld.util.NamedThreads;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the ledger's kubelet leases true to the kubelet: polls its {@code
 * v1.PodResourcesLister/List} on its Unix socket and, after each answer, confirms pending leases as
 * the pods that use them, releases the leases of pods that are gone and expires pending leases no
 * pod confirmed within {@code --kubelet-pending-lease-ttl} ({@link DeviceLedger#reconcileKubelet}).
 * The leases are also what gives GPU metrics their {@code pod}, {@code namespace} and {@code
 * container} labels.
 *
 * <p>Polls once per interval (default 1 s, well under the kubelet's 100 QPS limit). While the
 * socket does not exist (no kubelet, or not Kubernetes at all) it only checks for the file, without
 * logging. When a call fails it backs off exponentially up to {@code maxBackoff}; the first failure
 * of a run is logged at WARN, the rest at DEBUG. Leases are only ever changed after an answer:
 * while the socket is absent or calls fail they are kept, never dropped (a kubelet that is
 * restarting does not move pods).
 *
 * <p>Runs on its own thread, {@code acceld-podresources}.
 */
public final class PodResourcesPoller implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PodResourcesPoller.class);

  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);

  /** A kubelet answers List from memory; a call this slow means it is stuck. */
  static final Duration CALL_DEADLINE = Duration.ofSeconds(5);

  private final Path socket;
  private final UnixGrpc grpc;
  private final Duration interval;
  private final Duration maxBackoff;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(new NamedThreads("acceld-podresources"));

  private final DeviceLedger ledger;
  private final Predicate<String> ours;
  private final Duration pendingTtl;

  // Confined to the poller thread.
  private ManagedChannel channel;
  private final Backoff backoff;
  private boolean failing;
  private boolean socketSeen;
  private long startedNanos;

  /** Written by the poller thread, read by any: see {@link #settled()}. */
  private volatile boolean settled;

  /**
   * Polls every second, backing off up to 30 s on errors.
   *
   * @param ours whether a resource name is one this agent advertises
   */
  public PodResourcesPoller(
      Path socket,
      UnixGrpc grpc,
      DeviceLedger ledger,
      Predicate<String> ours,
      Duration pendingTtl) {
    this(socket, grpc, ledger, ours, pendingTtl, DEFAULT_INTERVAL, DEFAULT_MAX_BACKOFF);
  }

  public PodResourcesPoller(
      Path socket,
      UnixGrpc grpc,
      DeviceLedger ledger,
      Predicate<String> ours,
      Duration pendingTtl,
      Duration interval,
      Duration maxBackoff) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.ours = Objects.requireNonNull(ours, "ours");
    this.pendingTtl = Objects.requireNonNull(pendingTtl, "pendingTtl");
    this.socket = Objects.requireNonNull(socket, "socket");
    this.grpc = Objects.requireNonNull(grpc, "grpc");
    if (interval.isNegative() || interval.isZero() || maxBackoff.compareTo(interval) < 0) {
      throw new IllegalArgumentException(
          "need 0 < interval <= maxBackoff, got " + interval + " and " + maxBackoff);
    }
    this.interval = interval;
    this.maxBackoff = maxBackoff;
    this.backoff = new Backoff(interval, maxBackoff);
  }

  /** Whether the loop still runs; its task catches its own failures, so only close ends it. */
  public boolean alive() {
    return !thread.isShutdown();
  }

  /** Starts polling in the background; the first poll runs at once. */
  public void start() {
    startedNanos = System.nanoTime();
    schedule(Duration.ZERO);
  }

  /**
   * Whether the kubelet's leases are known since the start: a List was reconciled, or there is no
   * kubelet (no socket). Until then a pending lease lost in a crash (Allocate answered, checkpoint
   * not yet written) may not be in the ledger, so another side must not hand out devices. A kubelet
   * that keeps failing settles it after the pending-lease TTL, when such a lease would have expired
   * anyway.
   */
  public boolean settled() {
    return settled;
  }

  private void schedule(Duration delay) {
    try {
      thread.schedule(this::poll, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  private void poll() {
    Duration next = interval;
    try {
      if (!Files.exists(socket)) {
        if (socketSeen) {
          log.info("{} is gone; waiting for the kubelet to recreate it", socket);
          socketSeen = false;
        }
        closeChannel();
        settled = true;
      } else {
        socketSeen = true;
        ledger.reconcileKubelet(DeviceOwners.index(list(), ours), pendingTtl);
        settled = true;
        if (failing) {
          log.info("Listing pod resources from {} works again", socket);
          failing = false;
        }
        backoff.reset();
      }
    } catch (RuntimeException e) {
      next = backoff.next();
      if (System.nanoTime() - startedNanos >= pendingTtl.toNanos()) {
        settled = true;
      }
      if (!failing) {
        log.warn(
            "Cannot list pod resources from {}: {}; retrying with backoff up to {} s"
                + " (further failures are logged at DEBUG)",
            socket,
            e.toString(),
            maxBackoff.toSeconds());
        failing = true;
      } else {
        log.debug("Listing pod resources from {} failed again: {}", socket, e.toString());
      }
      // a fresh channel next time: the old one may be stuck in its own reconnect backoff
      closeChannel();
    }
    if (!thread.isShutdown()) {
      schedule(next);
    }
  }

  private ListPodResourcesResponse list() {
    if (channel == null) {
      channel = grpc.channel(socket);
    }
    return PodResourcesListerGrpc.newBlockingStub(channel)
        .withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
        .list(ListPodResourcesRequest.getDefaultInstance());
  }

  private void closeChannel() {
    if (channel != null) {
      channel.shutdownNow();
      channel = null;
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      if (!thread.awaitTermination(CALL_DEADLINE.toSeconds() + 1, TimeUnit.SECONDS)) {
        log.warn("The pod-resources poller did not stop in time");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // the thread has stopped, so the channel is no longer confined to it
    closeChannel();
  }
}
