package io.acceld.util;

import java.time.Duration;
import java.util.Objects;

/**
 * A capped exponential backoff: {@code first}, then twice the previous delay, never more than
 * {@code max}, until {@link #reset()} after a success. One loop's state, confined to its thread
 * (not thread-safe).
 */
public final class Backoff {
  private final Duration first;
  private final Duration max;
  private Duration next;

  public Backoff(Duration first, Duration max) {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(max, "max");
    if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
      throw new IllegalArgumentException(
          "a backoff needs 0 < first <= max, got " + first + " and " + max);
    }
    this.first = first;
    this.max = max;
    this.next = first;
  }

  /** The delay to wait after this failure; the one after it doubles, up to the cap. */
  public Duration next() {
    Duration now = next;
    // compare with half the cap rather than doubling first, so a long cap cannot overflow
    next = next.compareTo(max.dividedBy(2)) > 0 ? max : next.multipliedBy(2);
    return now;
  }

  /** After a success: the next failure waits {@code first} again. */
  public void reset() {
    next = first;
  }

  public Duration max() {
    return max;
  }
}
