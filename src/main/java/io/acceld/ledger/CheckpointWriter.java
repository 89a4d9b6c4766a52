package io.acceld.ledger;

import io.acceld.util.AtomicFiles;
import io.acceld.util.Backoff;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the ledger's checkpoint on its own thread, {@code acceld-ledger-checkpoint}, so that no
 * lease call waits for a disk. Writes are at least {@link #MIN_INTERVAL} apart: a change on a quiet
 * node is written at once, and a burst (a node's pods starting together) shares a write every
 * {@code MIN_INTERVAL}, taking the newest snapshot, so the cores that serve lease calls are not
 * spent on fsyncs (measured: BENCHMARKS.md). A caller that must know its lease is durable before it
 * acknowledges (the Mesos bridge) calls {@link #awaitPersisted}, which writes at once and says
 * false as soon as that write fails, so that a launch on a full disk is refused at once rather than
 * after the caller's timeout. The kubelet's Allocate does not: a pending lease lost in a crash
 * before its write comes back from the kubelet's pod-resources API, which is the truth for that
 * side.
 *
 * <p>When a write fails (disk full, read-only or missing state directory), the leases stay in
 * memory and are served from there; the failure is logged once at ERROR, the write is retried with
 * backoff (1 s up to 30 s), {@link #status} says why until it works again, and the recovery is
 * logged at INFO. Nothing is lost once the disk accepts the write: it always writes the newest
 * state, never a queue of old ones.
 */
public final class CheckpointWriter implements LeaseStore, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CheckpointWriter.class);

  static final Duration FIRST_RETRY = Duration.ofSeconds(1);
  static final Duration MAX_RETRY = Duration.ofSeconds(30);

  /** The shortest time between two writes, unless someone waits for durability. */
  static final Duration MIN_INTERVAL = Duration.ofMillis(200);

  /**
   * Whether the checkpoint is being kept.
   *
   * @param problem why the last write failed; empty while writes succeed
   * @param since when writes started failing
   */
  public record Status(Optional<String> problem, Optional<Instant> since) {
    static final Status OK = new Status(Optional.empty(), Optional.empty());

    public boolean ok() {
      return problem.isEmpty();
    }
  }

  private final LeaseCheckpoint checkpoint;
  private final Clock clock;
  private final Backoff backoff;
  private final Thread thread;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private Availability pending;

  @GuardedBy("lock")
  private long persisted = -1;

  @GuardedBy("lock")
  private boolean closed;

  // Someone waits for durability: skip the coalescing pause.
  @GuardedBy("lock")
  private int waiting;

  // Failed write attempts, and the version the last one tried to write: a waiter whose version
  // that attempt covered learns at once that it is not durable, rather than at its timeout.
  @GuardedBy("lock")
  private long failedAttempts;

  @GuardedBy("lock")
  private long lastFailedVersion = -1;

  // The writer thread only: when the last write attempt started (System.nanoTime()).
  private long lastWrite = System.nanoTime() - MIN_INTERVAL.toNanos();
  private volatile Status status = Status.OK;

  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong writeNanos = new AtomicLong();

  public CheckpointWriter(LeaseCheckpoint checkpoint, Clock clock) {
    this(checkpoint, clock, FIRST_RETRY, MAX_RETRY);
  }

  CheckpointWriter(
      LeaseCheckpoint checkpoint, Clock clock, Duration firstRetry, Duration maxRetry) {
    this.checkpoint = checkpoint;
    this.clock = clock;
    this.backoff = new Backoff(firstRetry, maxRetry);
    this.thread = new Thread(this::run, "acceld-ledger-checkpoint");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  @Override
  public void save(Availability snapshot) {
    synchronized (lock) {
      if (pending == null || snapshot.version() > pending.version()) {
        // Wake the writer only when it has nothing to do: during its coalescing pause it will take
        // this snapshot anyway, and waking it for each change would cost the callers' cores.
        boolean idle = pending == null || pending.version() <= persisted;
        pending = snapshot;
        if (idle) {
          lock.notifyAll();
        }
      }
    }
  }

  @Override
  public boolean awaitPersisted(long version, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      waiting++;
      lock.notifyAll();
      long failedBefore = failedAttempts;
      try {
        while (persisted < version) {
          long left = deadline - System.nanoTime();
          if (left <= 0 || closed) {
            return persisted >= version;
          }
          if (failedAttempts > failedBefore && lastFailedVersion >= version) {
            return false; // the write of this version failed (disk full, read-only): say so now
          }
          lock.wait(Math.max(1, left / 1_000_000));
        }
        return true;
      } finally {
        waiting--;
      }
    }
  }

  public Status status() {
    return status;
  }

  /** Successful writes since start. */
  public long writes() {
    return writes.get();
  }

  /** Failed write attempts since start. */
  public long failures() {
    return failures.get();
  }

  /** Time spent in successful writes since start. */
  public Duration writeTime() {
    return Duration.ofNanos(writeNanos.get());
  }

  private void run() {
    while (true) {
      Availability next;
      synchronized (lock) {
        while (!closed && (pending == null || pending.version() <= persisted)) {
          try {
            lock.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        // Let a burst gather, unless someone waits for this write.
        long until = lastWrite + MIN_INTERVAL.toNanos();
        while (!closed && waiting == 0 && System.nanoTime() < until) {
          try {
            lock.wait(Math.max(1, (until - System.nanoTime()) / 1_000_000));
          } catch (InterruptedException e) {
            return;
          }
        }
        if (closed) {
          return;
        }
        next = pending;
      }
      if (!write(next)) {
        synchronized (lock) {
          try {
            // A close, or nothing: either way, try again (or stop) after the pause.
            lock.wait(backoff.next().toMillis());
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }
  }

  /** One attempt; true if {@code snapshot} is now durable. */
  private boolean write(Availability snapshot) {
    long start = System.nanoTime();
    lastWrite = start;
    try {
      AtomicFiles.createDirectories(
          checkpoint.file().getParent(), AtomicFiles.DIRECTORY_OWNER_ONLY);
      checkpoint.write(snapshot);
    } catch (IOException | RuntimeException e) {
      failures.incrementAndGet();
      synchronized (lock) {
        failedAttempts++;
        lastFailedVersion = snapshot.version();
        lock.notifyAll();
      }
      if (status.ok()) {
        status = new Status(Optional.of(e.toString()), Optional.of(clock.instant()));
        log.error(
            "Cannot write the lease checkpoint {}: {}; leases are kept in memory and the write is"
                + " retried (with backoff up to {} s) until it works",
            checkpoint.file(),
            e.toString(),
            MAX_RETRY.toSeconds());
      } else {
        status = new Status(Optional.of(e.toString()), status.since());
        log.debug("Writing the lease checkpoint failed again: {}", e.toString());
      }
      return false;
    }
    writeNanos.addAndGet(System.nanoTime() - start);
    writes.incrementAndGet();
    backoff.reset();
    if (!status.ok()) {
      log.info(
          "The lease checkpoint {} is written again (it failed since {})",
          checkpoint.file(),
          status.since().orElse(null));
      status = Status.OK;
    }
    synchronized (lock) {
      persisted = Math.max(persisted, snapshot.version());
      lock.notifyAll();
    }
    return true;
  }

  /** Writes what is still pending (one last attempt) and stops the thread. */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      lock.notifyAll();
    }
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Availability last;
    synchronized (lock) {
      last = pending != null && pending.version() > persisted ? pending : null;
    }
    if (last != null) {
      write(last);
    }
  }
}
