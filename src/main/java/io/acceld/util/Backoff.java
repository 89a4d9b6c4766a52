package io.acceld.util;

import java.time.Duration;

/**
 * Capped exponential backoff: {@code first}, then twice the last pause, never more than {@code
 * max}, until {@link #reset}. Not thread-safe: each retry loop owns one.
 */
public final class Backoff {
  private final Duration first;
  private final Duration max;
  private Duration next;

  public Backoff(Duration first, Duration max) {
    if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
      throw new IllegalArgumentException("need 0 < first <= max, got " + first + " and " + max);
    }
    this.first = first;
    this.max = max;
    this.next = first;
  }

  /** The pause before the next attempt; each call doubles the one after, up to the cap. */
  public Duration next() {
    Duration pause = next;
    next = pause.compareTo(max.dividedBy(2)) > 0 ? max : pause.multipliedBy(2);
    return pause;
  }

  /** After a success: the next failure waits {@code first} again. */
  public void reset() {
    next = first;
  }
}
