package io.acceld.dra.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.dra.ClaimSource;
import io.acceld.kube.ApiException;
import io.acceld.kube.KubeApi;
import io.acceld.ledger.DeviceLedger;
import io.acceld.util.Backoff;
import io.acceld.util.GuardedBy;
import io.acceld.util.NamedThreads;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API-server side of DRA: publishes the node's free, healthy devices as {@code
 * resource.k8s.io/v1} ResourceSlices and reads ResourceClaims for prepare ({@link #claims()}).
 *
 * <p>Kind to the API server: a change on a quiet node is written after {@link
 * DraApiSettings.Timings#settle()} (50 ms, so a burst shares one write); rounds of writes are at
 * least {@link DraApiSettings.Timings#minWriteInterval()} (1 s) apart however much flaps
 * underneath; what exists is read from a watch, never polled; an unchanged node writes nothing.
 * Errors (server down, 401, 403, 409, 422) are retried after a jittered backoff up to 30 s,
 * reported in {@link #status()} and counted in the metrics; none stops the publisher.
 *
 * <p>Two named daemon threads: {@code acceld-dra-slices} (writes) and {@code acceld-dra-watch}.
 */
public final class SlicePublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SlicePublisher.class);
  private static final int CONFLICT_RETRIES = 3;

  private final DraApiSettings settings;
  private final DeviceLedger ledger;
  private final KubeApi api;
  private final SliceCache cache = new SliceCache();
  private final SlicePlanner planner;
  private final SliceStatus status;
  private final DraApiMetrics metrics = new DraApiMetrics();
  private final SliceWatch watch;
  private final Thread writer;
  private final Thread watcher;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private boolean dirty = true;

  @GuardedBy("lock")
  private boolean closed;

  // Only the writer thread touches these.
  private String nodeUid;
  private long lastRoundNanos;
  private boolean wroteBefore;

  private SlicePublisher(
      DraApiSettings settings, DeviceLedger ledger, MeterRegistry registry, Clock clock) {
    this.settings = settings;
    this.ledger = ledger;
    this.api = new KubeApi(settings.kube(), settings.timings().requestTimeout());
    this.planner = new SlicePlanner(settings.driver(), settings.nodeName());
    this.status = new SliceStatus(clock);
    metrics.bindTo(registry);
    this.watch =
        new SliceWatch(
            api,
            cache,
            settings.driver(),
            settings.nodeName(),
            settings.timings(),
            this::changed,
            status,
            metrics);
    this.writer = new NamedThreads("acceld-dra-slices").newThread(this::writeLoop);
    this.watcher = new NamedThreads("acceld-dra-watch").newThread(watch);
  }

  /**
   * Starts publishing {@code ledger}'s devices (which follows the inventory: presence, health and
   * leases) for {@code settings.driver()} on {@code settings.nodeName()}. Returns at once; nothing
   * here waits for the API server.
   */
  public static SlicePublisher start(
      DraApiSettings settings, DeviceLedger ledger, MeterRegistry registry, Clock clock) {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(ledger, "ledger");
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(clock, "clock");
    SlicePublisher publisher = new SlicePublisher(settings, ledger, registry, clock);
    publisher.writer.start();
    publisher.watcher.start();
    ledger.subscribe(a -> publisher.changed());
    log.info(
        "Publishing ResourceSlices of driver {} for node {} to {} ({})",
        settings.driver(),
        settings.nodeName(),
        settings.kube().server(),
        settings.kube().origin());
    return publisher;
  }

  /** For {@code /readyz} and {@code /healthz}. */
  public SliceStatus status() {
    return status;
  }

  public DraApiMetrics metrics() {
    return metrics;
  }

  /** ResourceClaims from the same API server, for prepare. */
  public ClaimSource claims() {
    return new ApiClaimSource(api);
  }

  /** Something changed (devices, leases, or the slices on the server): write if needed. */
  private void changed() {
    synchronized (lock) {
      dirty = true;
      lock.notifyAll();
    }
  }

  private void writeLoop() {
    Backoff backoff =
        new Backoff(settings.timings().backoffFirst(), settings.timings().backoffMax());
    while (awaitChange()) {
      try {
        if (round()) {
          backoff.reset();
        }
      } catch (ApiException e) {
        metrics.failed(e.kind());
        status.failed(
            e.kind() == ApiException.Kind.NOT_FOUND && nodeUid == null
                ? SliceStatus.Part.NODE
                : SliceStatus.Part.WRITES,
            e.getMessage());
        log.warn("Publishing this node's ResourceSlices failed; trying again: {}", e.getMessage());
        changed();
        sleep(SliceWatch.jittered(backoff.next(), settings.timings().backoffMax()));
      } catch (InvalidSlice e) {
        status.failed(SliceStatus.Part.WRITES, e.getMessage());
        log.error("Not publishing an invalid ResourceSlice: {}", e.getMessage());
        changed();
        sleep(SliceWatch.jittered(backoff.next(), settings.timings().backoffMax()));
      } catch (RuntimeException e) {
        // A bug, not the server: keep the thread, say so, and do not spin.
        status.failed(SliceStatus.Part.WRITES, e.toString());
        log.error("Publishing this node's ResourceSlices failed", e);
        changed();
        sleep(SliceWatch.jittered(backoff.next(), settings.timings().backoffMax()));
      }
    }
  }

  /**
   * Waits for a change, then for the settle time, then until a second has passed since the last
   * round; false when closed.
   */
  private boolean awaitChange() {
    synchronized (lock) {
      while (!dirty && !closed) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      if (closed) {
        return false;
      }
    }
    sleep(settings.timings().settle().toMillis());
    if (wroteBefore) {
      long next = lastRoundNanos + settings.timings().minWriteInterval().toNanos();
      sleep(TimeUnit.NANOSECONDS.toMillis(next - System.nanoTime()));
    }
    synchronized (lock) {
      dirty = false;
      return !closed;
    }
  }

  /**
   * One round: plan from the cache and write, re-reading a slice and planning again only after a
   * 409. Returns whether the slices were brought up to date.
   */
  private boolean round() throws ApiException, InvalidSlice {
    if (!cache.synced()) {
      return false; // the watch's list has not come; it calls changed() when it has
    }
    if (nodeUid == null) {
      nodeUid = nodeUid();
      status.recovered(SliceStatus.Part.NODE);
    }
    List<ObjectNode> devices = SliceDevices.publishable(ledger.current());
    for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
      List<SlicePlanner.Write> writes = planner.plan(devices, cache.snapshot(), nodeUid);
      if (writes.isEmpty()) {
        status.publishedNow();
        return true;
      }
      for (SlicePlanner.Write w : writes) {
        validate(w);
      }
      markRound();
      try {
        for (SlicePlanner.Write w : writes) {
          apply(w);
        }
        // Written: one round is one set of writes. Re-planning here would write again at once
        // should the server store something other than what we sent.
        status.publishedNow();
        return true;
      } catch (ApiException e) {
        if (e.kind() != ApiException.Kind.CONFLICT) {
          throw e;
        }
        metrics.failed(e.kind());
        reread(writes);
      }
    }
    throw new ApiException(
        ApiException.Kind.CONFLICT,
        409,
        "the slices kept changing under " + CONFLICT_RETRIES + " writes in a row");
  }

  private void markRound() {
    lastRoundNanos = System.nanoTime();
    wroteBefore = true;
  }

  private String nodeUid() throws ApiException {
    JsonNode node = api.get("/api/v1/nodes/" + KubeApi.segment(settings.nodeName()));
    String uid = node.path("metadata").path("uid").asText("");
    if (uid.isEmpty()) {
      throw new ApiException(
          ApiException.Kind.BAD_RESPONSE, 0, "the Node " + settings.nodeName() + " has no uid");
    }
    return uid;
  }

  private static void validate(SlicePlanner.Write w) throws InvalidSlice {
    ObjectNode slice = null;
    if (w instanceof SlicePlanner.Write.Create c) {
      slice = c.slice();
    } else if (w instanceof SlicePlanner.Write.Update u) {
      slice = u.slice();
    }
    if (slice != null) {
      List<String> problems = SliceValidator.validate(slice);
      if (!problems.isEmpty()) {
        throw new InvalidSlice(String.join("; ", problems));
      }
    }
  }

  private void apply(SlicePlanner.Write w) throws ApiException {
    if (w instanceof SlicePlanner.Write.Create c) {
      cache.put(api.create(SliceWatch.PATH, c.slice()));
      metrics.wrote(DraApiMetrics.Verb.CREATE);
    } else if (w instanceof SlicePlanner.Write.Update u) {
      cache.put(api.update(SliceWatch.PATH + "/" + KubeApi.segment(u.name()), u.slice()));
      metrics.wrote(DraApiMetrics.Verb.UPDATE);
    } else if (w instanceof SlicePlanner.Write.Delete d) {
      try {
        api.delete(SliceWatch.PATH + "/" + KubeApi.segment(d.name()));
      } catch (ApiException e) {
        if (e.kind() != ApiException.Kind.NOT_FOUND) {
          throw e;
        }
      }
      cache.remove(d.name());
      metrics.wrote(DraApiMetrics.Verb.DELETE);
    }
  }

  /** After a 409: the server's copy of each slice we meant to update, into the cache. */
  private void reread(List<SlicePlanner.Write> writes) throws ApiException {
    for (SlicePlanner.Write w : writes) {
      if (w instanceof SlicePlanner.Write.Update u) {
        try {
          cache.put(api.get(SliceWatch.PATH + "/" + KubeApi.segment(u.name())));
        } catch (ApiException e) {
          if (e.kind() != ApiException.Kind.NOT_FOUND) {
            throw e;
          }
          cache.remove(u.name());
        }
      }
    }
  }

  private void sleep(long millis) {
    if (millis <= 0) {
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    synchronized (lock) {
      long left;
      while (!closed && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(lock, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Stops both threads; the slices stay (the kubelet removes them when the plugin is gone). */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
    watch.close();
    api.close();
    // The JDK client (17) has no close: a request under way, or a watch's body read between two
    // events, ends only when the server answers. An interrupt ends both at once; without it a
    // close waited out the join's 5 s whenever the server was still up.
    writer.interrupt();
    watcher.interrupt();
    try {
      writer.join(Duration.ofSeconds(5).toMillis());
      watcher.join(Duration.ofSeconds(5).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A slice our own validator refuses: a bug or an inventory value we did not foresee. */
  private static final class InvalidSlice extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidSlice(String message) {
      super(message);
    }
  }
}
