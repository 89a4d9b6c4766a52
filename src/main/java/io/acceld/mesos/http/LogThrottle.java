package io.acceld.mesos.http;

import io.acceld.util.GuardedBy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * At most one log line per kind of event per interval, so a client repeating a bad request cannot
 * fill the log; the line that does get through says how many were left out. Keys are the server's
 * own fixed strings, never client text, so the map stays small.
 */
final class LogThrottle {
  private final long intervalNanos;
  private final LongSupplier nanoTime;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private final Map<String, long[]> lastAndSuppressed = new HashMap<>();

  LogThrottle(Duration interval, LongSupplier nanoTime) {
    this.intervalNanos = interval.toNanos();
    this.nanoTime = nanoTime;
  }

  /**
   * Whether a line of kind {@code key} may be logged now: -1 if not (it is counted), else how many
   * were suppressed since the last one logged.
   */
  long permit(String key) {
    long now = nanoTime.getAsLong();
    synchronized (lock) {
      long[] state = lastAndSuppressed.get(key);
      if (state == null) {
        lastAndSuppressed.put(key, new long[] {now, 0});
        return 0;
      }
      if (now - state[0] < intervalNanos) {
        state[1]++;
        return -1;
      }
      long suppressed = state[1];
      state[0] = now;
      state[1] = 0;
      return suppressed;
    }
  }

  /** " (N more since the last)" for a positive count, else nothing: the suffix of a logged line. */
  static String suffix(long suppressed) {
    return suppressed > 0 ? " (" + suppressed + " more like it not logged)" : "";
  }
}
