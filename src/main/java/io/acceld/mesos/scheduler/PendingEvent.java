package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.scheduler.Event;

/** An event for a framework, sent once its batch is decided. */
record PendingEvent(Framework framework, Event event) {
  void send() {
    framework.subscription.ifPresent(s -> s.send(event));
  }
}
