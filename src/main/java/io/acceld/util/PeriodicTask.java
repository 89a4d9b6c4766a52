package io.acceld.util;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loop on one named daemon thread: each turn runs, then the next waits a delay after it ended, so
 * a slow turn never overlaps the next and a failing one never spins. The loop survives its turns'
 * failures (an exception would otherwise cancel a scheduled task silently): the first failure of a
 * run is logged at ERROR with its stack trace, repeats at DEBUG, and the recovery at INFO, so a
 * persistent fault does not flood the log.
 *
 * <p>{@link #alive()} says whether the loop will run again; {@link #close()} interrupts the turn in
 * progress and waits a bounded time for it, because native calls (NVML) cannot be interrupted.
 */
public final class PeriodicTask implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PeriodicTask.class);

  /** How long {@link #close()} waits for a turn in progress. */
  public static final Duration DEFAULT_STOP_WAIT = Duration.ofSeconds(5);

  /** One turn of a loop that chooses its own pace. */
  @FunctionalInterface
  public interface Turn {
    /** Does the work once; returns how long to wait before the next turn. */
    Duration run();
  }

  private final String what;
  private final Turn turn;
  private final Duration afterFailure;
  private final ScheduledExecutorService thread;
  private boolean failing; // the loop thread only
  private volatile boolean broken;
  private volatile boolean started;
  private final LoopWatchdog watchdog;

  private PeriodicTask(String threadName, String what, Duration afterFailure, Turn turn) {
    this.what = Objects.requireNonNull(what, "what");
    this.turn = Objects.requireNonNull(turn, "turn");
    this.afterFailure = positive(afterFailure, "delay after a failure");
    this.thread = Executors.newSingleThreadScheduledExecutor(new NamedThreads(threadName));
    this.watchdog = new LoopWatchdog(what);
  }

  /**
   * Runs {@code body} every {@code interval}, measured from the end of one run to the start of the
   * next.
   *
   * @param threadName the thread's name, such as {@code acceld-health-probe}
   * @param what the work, for log lines: {@code "Health probe"} gives "Health probe failed"
   */
  public static PeriodicTask every(
      String threadName, String what, Duration interval, Runnable body) {
    Objects.requireNonNull(body, "body");
    positive(interval, "interval");
    return new PeriodicTask(
        threadName,
        what,
        interval,
        () -> {
          body.run();
          return interval;
        });
  }

  /**
   * Runs {@code turn} again after the delay each turn returns (an interval, or a {@link Backoff}
   * while the turn's own calls fail); after a turn that throws, waits {@code afterFailure}.
   */
  public static PeriodicTask paced(
      String threadName, String what, Duration afterFailure, Turn turn) {
    return new PeriodicTask(threadName, what, afterFailure, turn);
  }

  /** Starts the loop; the first turn runs at once. */
  public void start() {
    start(Duration.ZERO);
  }

  /** Starts the loop; the first turn runs after {@code initialDelay}. */
  public synchronized void start(Duration initialDelay) {
    if (started) {
      throw new IllegalStateException(what + " is already started");
    }
    started = true;
    schedule(initialDelay);
  }

  /**
   * Runs one extra turn as soon as the thread is free, between the scheduled ones and without
   * moving them; ignored once closed.
   */
  public void runSoon() {
    try {
      thread.execute(this::runGuarded);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /**
   * Why the loop is stuck, if a turn has run longer than {@code limit}: {@link #alive()} stays true
   * for a thread blocked for ever, so a health check asks this too.
   */
  public Optional<String> stuck(Duration limit) {
    return watchdog.stuck(limit);
  }

  /** Whether the loop will run again: not closed, and no turn died of an unexpected error. */
  public boolean alive() {
    return !thread.isShutdown() && !broken;
  }

  private void loop() {
    schedule(runGuarded());
  }

  /** One turn; an Error other than a LinkageError escapes, and then the loop is dead. */
  private Duration runGuarded() {
    boolean returned = false;
    try {
      Duration next = runSafely();
      returned = true;
      return next;
    } finally {
      if (!returned) {
        broken = true;
        log.error("{} stopped: its thread died of an unexpected error", what);
      }
    }
  }

  private Duration runSafely() {
    watchdog.turnBegins();
    try {
      Duration next = Objects.requireNonNull(turn.run(), "the delay a turn returns");
      if (failing) {
        log.info("{} works again", what);
        failing = false;
      }
      return next.isNegative() ? Duration.ZERO : next;
    } catch (RuntimeException | LinkageError e) {
      if (!failing) {
        log.error("{} failed; trying again in {} ms", what, afterFailure.toMillis(), e);
        failing = true;
      } else {
        log.debug("{} failed again: {}", what, e.toString());
      }
      return afterFailure;
    } finally {
      watchdog.turnEnds();
    }
  }

  private void schedule(Duration delay) {
    try {
      thread.schedule(this::loop, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** Stops the loop, waiting up to {@link #DEFAULT_STOP_WAIT} for a turn in progress. */
  @Override
  public void close() {
    close(DEFAULT_STOP_WAIT);
  }

  /** Stops the loop; true if the thread ended within {@code wait}. */
  public boolean close(Duration wait) {
    thread.shutdownNow();
    try {
      if (thread.awaitTermination(wait.toNanos(), TimeUnit.NANOSECONDS)) {
        return true;
      }
      log.warn("{} did not stop within {} ms", what, wait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }

  private static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
    return d;
  }
}
