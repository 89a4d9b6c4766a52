package io.acceld.mesos.executor;

import io.acceld.proto.mesos.v1.executor.Event;
import io.acceld.testing.Eventually;
import io.acceld.testing.mesos.RecordedStream;
import java.util.List;

/** An executor's event stream as the HTTP layer would hold it, recording what is sent. */
final class RecordingEventStream extends RecordedStream<Event> {
  final List<Event> events = sent();

  RecordingEventStream() {
    super(Event.class);
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
