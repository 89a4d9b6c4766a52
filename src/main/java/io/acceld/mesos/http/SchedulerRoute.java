package io.acceld.mesos.http;

import com.sun.net.httpserver.HttpExchange;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.scheduler.Call;
import java.io.IOException;
import java.util.Optional;

/**
 * {@code POST /api/v1/scheduler}: the transport's share of Mesos's status-code order ({@code
 * apache/mesos:src/master/http.cpp} L468-730), then the {@link SchedulerEndpoint}. After the body
 * checks of {@link CallRequests}: 400 without a type; for SUBSCRIBE, 400 without its {@code
 * subscribe}, 406 when Accept allows neither codec, then 400 when it carries a {@code
 * Mesos-Stream-Id} (Mesos checks Accept first); 501 for UNKNOWN.
 */
final class SchedulerRoute {
  private final SchedulerEndpoint endpoint;
  private final CallRequests requests;
  private final StreamReplies replies;

  SchedulerRoute(SchedulerEndpoint endpoint, CallRequests requests, StreamReplies replies) {
    this.endpoint = endpoint;
    this.requests = requests;
    this.replies = replies;
  }

  void handle(HttpExchange exchange, Optional<String> principal) throws IOException {
    Optional<Call> read = requests.read(exchange, Call.getDefaultInstance());
    if (read.isEmpty()) {
      return;
    }
    Call call = read.get();
    if (!call.hasType()) {
      Exchanges.text(exchange, 400, "Expecting 'type' to be present");
      return;
    }
    Optional<String> streamId = Exchanges.header(exchange, "Mesos-Stream-Id");
    switch (call.getType()) {
      case SUBSCRIBE -> {
        if (!call.hasSubscribe()) {
          Exchanges.text(exchange, 400, "Expecting 'subscribe' to be present");
          return;
        }
        Optional<MediaType> accept = Exchanges.streamMediaType(exchange);
        if (accept.isEmpty()) {
          return;
        }
        if (streamId.isPresent()) {
          Exchanges.text(
              exchange, 400, "Subscribe calls should not include the 'Mesos-Stream-Id' header");
          return;
        }
        replies.subscribe(exchange, accept.get(), () -> endpoint.subscribe(call, principal));
      }
      case UNKNOWN -> Exchanges.text(exchange, 501, "Received 'UNKNOWN' call");
      default -> replies.call(exchange, endpoint.handle(call, streamId, principal));
    }
  }
}
