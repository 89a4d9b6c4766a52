package io.acceld.util;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * A log for messages a client can cause as often as it likes (a refused call, a malformed request):
 * each message template is written at most once per interval, and the next one that is written says
 * how many were suppressed meanwhile, so a flood of bad requests costs a few lines a minute instead
 * of filling the disk, and the operator still learns how big the flood was.
 *
 * <p>Templates are the key, not the formatted text, so that a client varying its bytes cannot open
 * a fresh window per request; callers must pass constant templates (the set is then bounded).
 */
public final class RateLimitedLog {
  private final Logger log;
  private final long intervalNanos;
  private final LongSupplier nanoTime;
  private final Map<String, Window> windows = new ConcurrentHashMap<>();

  /** A log that writes each template at most once per {@code interval}. */
  public RateLimitedLog(Logger log, Duration interval) {
    this(log, interval, System::nanoTime);
  }

  RateLimitedLog(Logger log, Duration interval, LongSupplier nanoTime) {
    this.log = log;
    this.intervalNanos = interval.toNanos();
    this.nanoTime = nanoTime;
  }

  public void warn(String template, Object... args) {
    write(Level.WARN, template, args);
  }

  public void info(String template, Object... args) {
    write(Level.INFO, template, args);
  }

  public void debug(String template, Object... args) {
    write(Level.DEBUG, template, args);
  }

  public void error(String template, Object... args) {
    write(Level.ERROR, template, args);
  }

  private void write(Level level, String template, Object... args) {
    if (!log.isEnabledForLevel(level)) {
      return;
    }
    long suppressed =
        windows.computeIfAbsent(template, t -> new Window()).admit(nanoTime.getAsLong());
    if (suppressed < 0) {
      return;
    }
    if (suppressed == 0) {
      emit(level, template, args);
      return;
    }
    // The count goes before a trailing Throwable, which slf4j treats as the exception to print.
    int at =
        args.length > 0 && args[args.length - 1] instanceof Throwable
            ? args.length - 1
            : args.length;
    Object[] withCount = new Object[args.length + 1];
    System.arraycopy(args, 0, withCount, 0, at);
    withCount[at] = suppressed;
    System.arraycopy(args, at, withCount, at + 1, args.length - at);
    emit(level, template + " ({} more like this suppressed)", withCount);
  }

  private void emit(Level level, String template, Object[] args) {
    switch (level) {
      case ERROR -> log.error(template, args);
      case WARN -> log.warn(template, args);
      case INFO -> log.info(template, args);
      default -> log.debug(template, args);
    }
  }

  /** One template's state: when it was last written and how many were dropped since. */
  private final class Window {
    private boolean written;
    private long lastWritten;
    private long suppressed;

    /** -1 to drop this message, else how many were dropped before it (it is to be written). */
    synchronized long admit(long now) {
      if (written && now - lastWritten < intervalNanos) {
        suppressed++;
        return -1;
      }
      written = true;
      lastWritten = now;
      long dropped = suppressed;
      suppressed = 0;
      return dropped;
    }
  }
}
