package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.scheduler.Event;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * HEARTBEAT events: one right after SUBSCRIBED (Mesos's heartbeater has no initial delay), then one
 * every interval, until the subscription ends. Clients reconnect after about five missed ones.
 */
final class Heartbeats {
  private static final Event HEARTBEAT = Event.newBuilder().setType(Event.Type.HEARTBEAT).build();

  private final ScheduledExecutorService timers;
  private final Duration interval;

  Heartbeats(ScheduledExecutorService timers, Duration interval) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("the heartbeat interval must be positive: " + interval);
    }
    this.timers = timers;
    this.interval = interval;
  }

  Duration interval() {
    return interval;
  }

  /** Sends the first HEARTBEAT now and schedules the rest. */
  void start(Subscription s) {
    s.send(HEARTBEAT);
    long nanos = interval.toNanos();
    s.heartbeatWith(
        timers.scheduleAtFixedRate(
            () -> {
              if (!s.send(HEARTBEAT)) {
                throw new IllegalStateException("stream closed"); // ends the repetition
              }
            },
            nanos,
            nanos,
            TimeUnit.NANOSECONDS));
  }
}
