package io.acceld.mesos.tasks;

import com.google.protobuf.Message;
import io.acceld.mesos.http.EventStream;
import io.acceld.proto.mesos.v1.scheduler.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An {@link EventStream} as the HTTP layer's behaves towards the endpoint: {@code send} never
 * blocks and is refused once closed; {@code onClose} listeners run once, at once if already closed;
 * {@link #hangUp} is the client going away. Keeps what was sent for the test to read.
 */
public final class RecordingStream implements EventStream {
  private final LinkedBlockingQueue<Event> unread = new LinkedBlockingQueue<>();
  private final List<Event> all = new CopyOnWriteArrayList<>();
  private final List<Runnable> listeners = new ArrayList<>();
  private boolean open = true;

  @Override
  public boolean send(Message event) {
    synchronized (this) {
      if (!open) {
        return false;
      }
    }
    Event e = (Event) event;
    all.add(e);
    unread.add(e);
    return true;
  }

  @Override
  public void close() {
    List<Runnable> run;
    synchronized (this) {
      if (!open) {
        return;
      }
      open = false;
      run = List.copyOf(listeners);
      listeners.clear();
    }
    run.forEach(Runnable::run);
  }

  /** The client hangs up: to the endpoint, the same as the stream ending. */
  public void hangUp() {
    close();
  }

  @Override
  public synchronized boolean isOpen() {
    return open;
  }

  @Override
  public void onClose(Runnable listener) {
    boolean now;
    synchronized (this) {
      now = !open;
      if (!now) {
        listeners.add(listener);
      }
    }
    if (now) {
      listener.run();
    }
  }

  /** The next event not yet read, waiting up to 10 s. */
  public Event next() {
    return next(Duration.ofSeconds(10));
  }

  public Event next(Duration timeout) {
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

  public Event next(Predicate<Event> wanted, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no matching event within " + timeout + "; all: " + types());
      }
      Event e = next(Duration.ofNanos(left));
      if (wanted.test(e)) {
        return e;
      }
    }
  }

  public Event next(Event.Type type) {
    return next(e -> e.getType() == type);
  }

  /** Whether an event matching {@code wanted} arrives within {@code timeout} (others skipped). */
  public boolean arrives(Predicate<Event> wanted, Duration timeout) {
    try {
      next(wanted, timeout);
      return true;
    } catch (AssertionError e) {
      return false;
    }
  }

  public List<Event> all() {
    return List.copyOf(all);
  }

  public List<Event.Type> types() {
    return all.stream().map(Event::getType).toList();
  }
}
