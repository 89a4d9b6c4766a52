package io.acceld.mesos.scheduler;

import java.time.Instant;

/**
 * What a framework declined (or left unused in an ACCEPT) and until when: like Mesos's offer
 * filter, it holds back an offer whose every amount fits in what was declined, so a framework is
 * offered again sooner when more becomes free.
 */
record DeclineFilter(Quantities declined, Instant until) {
  /** Mesos caps {@code refuse_seconds} at a year. */
  static final double MAX_REFUSE_SECONDS = 365 * 24 * 3600.0;

  static final double DEFAULT_REFUSE_SECONDS = 5.0;

  /** {@code refuse_seconds} as Mesos reads it: negative (or NaN) means the default; capped. */
  static double refuseSeconds(boolean given, double value) {
    if (!given || Double.isNaN(value) || value < 0) {
      return DEFAULT_REFUSE_SECONDS;
    }
    return Math.min(value, MAX_REFUSE_SECONDS);
  }

  boolean holdsBack(Quantities candidate, Instant now) {
    return now.isBefore(until) && candidate.fitsIn(declined);
  }
}
