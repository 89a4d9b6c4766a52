package io.acceld.mesos.tasks;

import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.Waits;
import io.acceld.testing.mesos.RecordedStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A scheduler's event stream as the HTTP layer holds it ({@link RecordedStream}), read in order as
 * a client reads it; {@link #hangUp} is the client going away.
 */
public final class RecordingStream extends RecordedStream<Event> {
  private final LinkedBlockingQueue<Event> unread = new LinkedBlockingQueue<>();

  public RecordingStream() {
    super(Event.class);
  }

  @Override
  protected void onSent(Event event) {
    unread.add(event);
  }

  /** The client hangs up: to the endpoint, the same as the stream ending. */
  public void hangUp() {
    close();
  }

  /** The next event not yet read, waiting up to 10 s. */
  public Event next() {
    return next(Duration.ofSeconds(10));
  }

  /** The next event not yet read, failing after {@code timeout} (scaled by {@link Waits}). */
  public Event next(Duration timeout) {
    return poll(Waits.scaled(timeout));
  }

  private Event poll(Duration timeout) {
    try {
      Event e = unread.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
      if (e == null) {
        throw new AssertionError("no event within " + timeout + "; all so far: " + types());
      }
      return e;
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new AssertionError(ex);
    }
  }

  /** Reads events until one matches, skipping the rest (HEARTBEATs, ...). */
  public Event next(Predicate<Event> wanted) {
    return next(wanted, Duration.ofSeconds(10));
  }

  /** Reads events until one matches, failing after {@code timeout} (scaled by {@link Waits}). */
  public Event next(Predicate<Event> wanted, Duration timeout) {
    return first(wanted, Waits.scaled(timeout));
  }

  private Event first(Predicate<Event> wanted, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no matching event within " + timeout + "; all: " + types());
      }
      Event e = poll(Duration.ofNanos(left));
      if (wanted.test(e)) {
        return e;
      }
    }
  }

  public Event next(Event.Type type) {
    return next(e -> e.getType() == type);
  }

  /**
   * Whether an event matching {@code wanted} arrives within {@code timeout} (others skipped): not
   * scaled, since it asserts that something does not happen within a window.
   */
  public boolean arrives(Predicate<Event> wanted, Duration timeout) {
    try {
      first(wanted, timeout);
      return true;
    } catch (AssertionError e) {
      return false;
    }
  }

  public List<Event> all() {
    return List.copyOf(sent());
  }

  public List<Event.Type> types() {
    return sent().stream().map(Event::getType).toList();
  }
}
