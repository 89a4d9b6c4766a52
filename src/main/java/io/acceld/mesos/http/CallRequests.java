package io.acceld.mesos.http;

import com.google.protobuf.Message;
import com.sun.net.httpserver.HttpExchange;
import io.acceld.mesos.wire.CallDecodeException;
import io.acceld.mesos.wire.MediaType;
import io.acceld.mesos.wire.MesosCodec;
import io.acceld.util.ClientText;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of both call endpoints that comes before any call is looked at, in Mesos's order ({@code
 * apache/mesos:src/master/http.cpp} {@code Master::Http::scheduler}): 405 for anything but POST,
 * 400 without a Content-Type, 415 for any other than the two, 413 for a body over the limit, 400
 * for one that does not decode.
 */
final class CallRequests {
  private static final Logger log = LoggerFactory.getLogger(CallRequests.class);

  /** How much of a too-large body is read and dropped before the 413; past it the socket closes. */
  static final long DISCARD_LIMIT = 1L << 20;

  private final int maxBodyBytes;
  private final LogThrottle throttle;

  CallRequests(int maxBodyBytes, LogThrottle throttle) {
    this.maxBodyBytes = maxBodyBytes;
    this.throttle = throttle;
  }

  /** A decoded call, or empty when the request has been answered with an error. */
  <T extends Message> Optional<T> read(HttpExchange exchange, T prototype) throws IOException {
    if (!exchange.getRequestMethod().equals("POST")) {
      Exchanges.methodNotAllowed(exchange, "POST");
      return Optional.empty();
    }
    Optional<String> contentType = Exchanges.header(exchange, "Content-Type");
    if (contentType.isEmpty()) {
      Exchanges.text(exchange, 400, "Expecting 'Content-Type' to be present");
      return Optional.empty();
    }
    Optional<MediaType> type = MediaType.ofContentType(contentType.get());
    if (type.isEmpty()) {
      Exchanges.text(
          exchange,
          415,
          "Expecting 'Content-Type' of "
              + MediaType.JSON.value()
              + " or "
              + MediaType.PROTOBUF.value());
      return Optional.empty();
    }
    byte[] body;
    try {
      body = Exchanges.readBody(exchange, maxBodyBytes);
    } catch (Exchanges.BodyTooLargeException e) {
      long suppressed = throttle.permit("body-too-large");
      if (suppressed >= 0) {
        log.warn(
            "Refused a Mesos call from {}: {}{}",
            exchange.getRemoteAddress(),
            e.getMessage(),
            LogThrottle.suffix(suppressed));
      }
      // The rest of the body is read and dropped (up to a bound) before answering, so the client
      // is not reset mid-send and loses no answer; and the connection is closed after it, which
      // the answer says, or a client that pools connections would send its next call into it.
      Exchanges.discardBody(exchange, DISCARD_LIMIT);
      exchange.getResponseHeaders().set("Connection", "close");
      Exchanges.text(exchange, 413, e.getMessage());
      return Optional.empty();
    }
    try {
      return Optional.of(MesosCodec.decode(body, type.get(), prototype));
    } catch (CallDecodeException e) {
      if (log.isDebugEnabled() && throttle.permit("bad-call") >= 0) {
        log.debug(
            "Refused a Mesos call from {}: {}",
            exchange.getRemoteAddress(),
            ClientText.quote(e.getMessage()));
      }
      Exchanges.text(exchange, 400, e.getMessage());
      return Optional.empty();
    }
  }
}
