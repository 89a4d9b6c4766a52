package io.acceld.mesos.http;

import com.sun.net.httpserver.HttpExchange;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.executor.Call;
import io.acceld.util.ClientText;
import java.io.IOException;
import java.util.Optional;

/**
 * {@code POST /api/v1/executor}: the transport's share of the agent's status-code order ({@code
 * apache/mesos:src/slave/http.cpp} L730-891), then the {@link ExecutorEndpoint}. After the body
 * checks of {@link CallRequests} (the proto makes {@code framework_id} and {@code executor_id}
 * required, so a call without them does not decode): 400 without a type or without the message its
 * type needs; 406 for a SUBSCRIBE whose Accept allows neither codec; 503 while the agent recovers;
 * 202 for HEARTBEAT before anything is looked up; 501 for UNKNOWN. An executor authenticated by its
 * own token gets 403 for a call naming another executor (after the 400s: the IDs must be there to
 * be compared).
 */
final class ExecutorRoute {
  private final ExecutorEndpoint endpoint;
  private final CallRequests requests;
  private final StreamReplies replies;

  ExecutorRoute(ExecutorEndpoint endpoint, CallRequests requests, StreamReplies replies) {
    this.endpoint = endpoint;
    this.requests = requests;
    this.replies = replies;
  }

  /**
   * @param caller the executor whose token authenticated the request, which may make calls for
   *     itself only; empty for the operator or without authentication
   */
  void handle(HttpExchange exchange, Optional<ExecutorTokens.Identity> caller) throws IOException {
    Optional<Call> read = requests.read(exchange, Call.getDefaultInstance());
    if (read.isEmpty()) {
      return;
    }
    Call call = read.get();
    Optional<String> invalid = invalid(call);
    if (invalid.isPresent()) {
      Exchanges.text(exchange, 400, invalid.get());
      return;
    }
    Optional<String> forbidden = caller.flatMap(c -> notItsOwn(c, call));
    if (forbidden.isPresent()) {
      Exchanges.text(exchange, 403, forbidden.get());
      return;
    }
    Optional<MediaType> accept = Optional.empty();
    if (call.getType() == Call.Type.SUBSCRIBE) {
      accept = Exchanges.streamMediaType(exchange);
      if (accept.isEmpty()) {
        return;
      }
    }
    if (endpoint.recovering()) {
      Exchanges.text(exchange, 503, "Agent has not finished recovery");
      return;
    }
    switch (call.getType()) {
      case HEARTBEAT -> Exchanges.empty(exchange, 202);
      case UNKNOWN -> Exchanges.text(exchange, 501, "Received 'UNKNOWN' call");
      case SUBSCRIBE -> replies.subscribe(exchange, accept.get(), () -> endpoint.subscribe(call));
      default -> replies.call(exchange, endpoint.handle(call));
    }
  }

  /** Why an executor's token does not cover {@code call}: it names another executor. */
  private static Optional<String> notItsOwn(ExecutorTokens.Identity caller, Call call) {
    String framework = call.getFrameworkId().getValue();
    String executor = call.getExecutorId().getValue();
    if (caller.frameworkId().equals(framework) && caller.executorId().equals(executor)) {
      return Optional.empty();
    }
    return Optional.of(
        "The token was issued to executor "
            + ClientText.quote(caller.executorId())
            + " of framework "
            + ClientText.quote(caller.frameworkId())
            + "; it cannot make calls for executor "
            + ClientText.quote(executor)
            + " of framework "
            + ClientText.quote(framework));
  }

  /**
   * Mesos's {@code validateExecutorCall} (src/common/validation.cpp) up to the per-type payload.
   */
  private static Optional<String> invalid(Call call) {
    if (!call.hasType()) {
      return Optional.of("Expecting 'type' to be present");
    }
    boolean missing =
        switch (call.getType()) {
          case SUBSCRIBE -> !call.hasSubscribe();
          case UPDATE -> !call.hasUpdate();
          case MESSAGE -> !call.hasMessage();
          default -> false;
        };
    if (missing) {
      String name = call.getType().name().toLowerCase(java.util.Locale.ROOT);
      return Optional.of("Expecting '" + name + "' to be present");
    }
    return Optional.empty();
  }
}
