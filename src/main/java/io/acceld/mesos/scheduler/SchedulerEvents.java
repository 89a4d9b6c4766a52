package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Event;

/** The scheduler events the master's parts build alike. No state. */
final class SchedulerEvents {
  private SchedulerEvents() {}

  static Event update(TaskStatus status) {
    return Event.newBuilder()
        .setType(Event.Type.UPDATE)
        .setUpdate(Event.Update.newBuilder().setStatus(status))
        .build();
  }

  static Event error(String message) {
    return Event.newBuilder()
        .setType(Event.Type.ERROR)
        .setError(Event.Error.newBuilder().setMessage(message))
        .build();
  }
}
