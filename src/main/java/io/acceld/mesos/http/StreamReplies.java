package io.acceld.mesos.http;

import com.sun.net.httpserver.HttpExchange;
import io.acceld.mesos.wire.MediaType;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns an endpoint's {@link Reply} into the HTTP answer, and serves event streams: each holds one
 * of a bounded number of slots (and so of threads) for its whole life.
 */
final class StreamReplies {
  private static final Logger log = LoggerFactory.getLogger(StreamReplies.class);
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

  private final int maxStreams;
  private final Semaphore slots;
  private final int queueEvents;
  private final ScheduledExecutorService reaper;
  private final LogThrottle throttle;

  StreamReplies(
      int maxStreams, int queueEvents, ScheduledExecutorService reaper, LogThrottle throttle) {
    this.maxStreams = maxStreams;
    this.slots = new Semaphore(maxStreams);
    this.queueEvents = queueEvents;
    this.reaper = reaper;
    this.throttle = throttle;
  }

  /**
   * Answers a SUBSCRIBE: asks {@code subscribe} for the reply only once a stream slot is held, so
   * no endpoint registers a subscriber the server then cannot serve. Holds the calling (exchange)
   * thread while the stream is open.
   */
  void subscribe(HttpExchange exchange, MediaType type, Supplier<Reply> subscribe)
      throws IOException {
    if (!slots.tryAcquire()) {
      long suppressed = throttle.permit("too-many-streams");
      if (suppressed >= 0) {
        log.warn(
            "Refused a Mesos SUBSCRIBE from {}: {} event streams are open already{}",
            exchange.getRemoteAddress(),
            maxStreams,
            LogThrottle.suffix(suppressed));
      }
      Exchanges.text(exchange, 503, "Too many event streams are open");
      return;
    }
    try {
      answer(exchange, subscribe.get(), Optional.of(type));
    } finally {
      slots.release();
    }
  }

  /** Answers a call that is not a SUBSCRIBE. */
  void call(HttpExchange exchange, Reply reply) throws IOException {
    answer(exchange, reply, Optional.empty());
  }

  private void answer(HttpExchange exchange, Reply reply, Optional<MediaType> streamType)
      throws IOException {
    if (reply instanceof Reply.Accepted) {
      Exchanges.empty(exchange, 202);
    } else if (reply instanceof Reply.Ok) {
      Exchanges.empty(exchange, 200);
    } else if (reply instanceof Reply.Failure failure) {
      Exchanges.text(exchange, failure.status(), failure.message());
    } else if (reply instanceof Reply.Stream stream && streamType.isPresent()) {
      serve(exchange, stream, streamType.get());
    } else {
      throw new IllegalStateException("an endpoint answered a non-SUBSCRIBE call with " + reply);
    }
  }

  private void serve(HttpExchange exchange, Reply.Stream reply, MediaType type) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type.value());
    reply.streamId().ifPresent(id -> exchange.getResponseHeaders().set("Mesos-Stream-Id", id));
    exchange.sendResponseHeaders(200, 0); // 0: chunked, no Content-Length
    String name = reply.streamId().orElseGet(() -> UUID.randomUUID().toString());
    HttpEventStream stream =
        new HttpEventStream(
            name + " to " + exchange.getRemoteAddress(),
            type,
            queueEvents,
            CLOSE_GRACE,
            reaper,
            throttle);
    try {
      reply.opened().accept(stream);
    } catch (RuntimeException e) {
      log.warn("The endpoint failed opening Mesos event stream {}", name, e);
      stream.close();
    }
    stream.writeUntilClosed(exchange);
  }
}
