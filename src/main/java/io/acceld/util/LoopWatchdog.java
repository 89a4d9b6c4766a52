package io.acceld.util;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Tells a loop that is stuck from one that is merely alive: the loop marks when each turn begins
 * and ends, and {@link #stuck} says so once a turn has run longer than a limit. A thread blocked in
 * a read that never returns (a wedged driver attribute, a hung native call) keeps its executor
 * "running", so only the time since a turn began shows that nothing is being done.
 */
public final class LoopWatchdog {
  private final String what;
  private final LongSupplier nanoTime;
  private volatile long turnStarted; // 0: no turn running
  private volatile long lastCompleted;

  /**
   * @param what the loop, for the reason: {@code "device discovery"}
   */
  public LoopWatchdog(String what) {
    this(what, System::nanoTime);
  }

  LoopWatchdog(String what, LongSupplier nanoTime) {
    this.what = what;
    this.nanoTime = nanoTime;
  }

  public void turnBegins() {
    long now = nanoTime.getAsLong();
    turnStarted = now == 0 ? 1 : now;
  }

  public void turnEnds() {
    lastCompleted = nanoTime.getAsLong();
    turnStarted = 0;
  }

  /** Why the loop counts as stuck, if its current turn has run longer than {@code limit}. */
  public Optional<String> stuck(Duration limit) {
    long started = turnStarted;
    if (started == 0) {
      return Optional.empty();
    }
    Duration running = Duration.ofNanos(nanoTime.getAsLong() - started);
    if (running.compareTo(limit) <= 0) {
      return Optional.empty();
    }
    return Optional.of(
        what
            + " is stuck: its current turn has run for "
            + running.toSeconds()
            + " s (limit "
            + limit.toSeconds()
            + " s)"
            + (lastCompleted == 0 ? "" : "; the last turn completed before it"));
  }
}
