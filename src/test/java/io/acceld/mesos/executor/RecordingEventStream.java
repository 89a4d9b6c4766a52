package io.acceld.mesos.executor;

import com.google.protobuf.Message;
import io.acceld.mesos.http.EventStream;
import io.acceld.proto.mesos.v1.executor.Event;
import io.acceld.testing.Eventually;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An executor's event stream as the HTTP layer would hold it, recording what is sent. */
final class RecordingEventStream implements EventStream {
  final List<Event> events = new CopyOnWriteArrayList<>();
  private final List<Runnable> listeners = new ArrayList<>();
  private boolean open = true;

  @Override
  public synchronized boolean send(Message event) {
    if (!open) {
      return false;
    }
    events.add((Event) event);
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

  List<Event.Type> types() {
    return events.stream().map(Event::getType).toList();
  }

  Event await(Event.Type type) {
    Eventually.await(
        type + " on the stream (so far " + types() + ")", () -> types().contains(type));
    return events.stream().filter(e -> e.getType() == type).findFirst().orElseThrow();
  }
}
