package io.acceld.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition instead of sleeping a guessed time: fast when things work, clear when not.
 * Every timeout is the time on an idle machine, scaled by {@link Waits}.
 */
public final class Eventually {
  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  private static final long POLL_MILLIS = 5;

  private Eventually() {}

  /** Polls {@code condition} until it holds, failing with {@code what} after 10 s (scaled). */
  public static void await(String what, BooleanSupplier condition) {
    await(what, DEFAULT_TIMEOUT, condition);
  }

  public static void await(String what, Duration timeout, BooleanSupplier condition) {
    Duration scaled = Waits.scaled(timeout);
    long deadline = System.nanoTime() + scaled.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + scaled + " waiting for " + what);
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }
}
