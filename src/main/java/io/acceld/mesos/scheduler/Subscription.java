package io.acceld.mesos.scheduler;

import com.google.protobuf.Message;
import io.acceld.mesos.http.EventStream;
import java.util.concurrent.ScheduledFuture;

/**
 * One open SUBSCRIBE stream of a framework: its {@code Mesos-Stream-Id} and the events going down
 * it. A framework has at most one; a newer one replaces it.
 */
final class Subscription {
  final String streamId;
  final EventStream stream;

  // Set once, by Heartbeats, right after SUBSCRIBED went out; read by whoever ends it.
  private volatile ScheduledFuture<?> heartbeat;

  Subscription(String streamId, EventStream stream) {
    this.streamId = streamId;
    this.stream = stream;
  }

  boolean send(Message event) {
    return stream.send(event);
  }

  void heartbeatWith(ScheduledFuture<?> future) {
    heartbeat = future;
  }

  /** Stops heartbeats and ends the HTTP response. */
  void end() {
    ScheduledFuture<?> h = heartbeat;
    if (h != null) {
      h.cancel(false);
    }
    stream.close();
  }
}
