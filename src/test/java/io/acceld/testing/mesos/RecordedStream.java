package io.acceld.testing.mesos;

import com.google.protobuf.Message;
import io.acceld.mesos.http.EventStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An {@link EventStream} that behaves towards an endpoint as the HTTP layer's does ({@code send}
 * never blocks and is refused once closed; {@code onClose} listeners run once, at once if already
 * closed) and keeps every event sent, for tests that call an endpoint without HTTP.
 *
 * @param <E> the scheduler's or the executor's {@code Event}
 */
public class RecordedStream<E extends Message> implements EventStream {
  private final Class<E> type;
  private final List<E> sent = new CopyOnWriteArrayList<>();
  private final List<Runnable> listeners = new ArrayList<>();
  private boolean open = true;

  protected RecordedStream(Class<E> type) {
    this.type = type;
  }

  @Override
  public boolean send(Message event) {
    synchronized (this) {
      if (!open) {
        return false;
      }
    }
    E e = type.cast(event);
    sent.add(e);
    onSent(e);
    return true;
  }

  /** What a subclass does with each event once it is kept. */
  protected void onSent(E event) {}

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

  @Override
  public synchronized boolean isOpen() {
    return open;
  }

  @Override
  public void onClose(Runnable listener) {
    synchronized (this) {
      if (open) {
        listeners.add(listener);
        return;
      }
    }
    listener.run();
  }

  /** Every event sent so far, in order (a live view). */
  protected List<E> sent() {
    return sent;
  }
}
