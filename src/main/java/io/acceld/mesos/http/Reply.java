package io.acceld.mesos.http;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * What an endpoint answers a decoded call with. The HTTP layer owns status lines, headers and
 * codecs; endpoints only decide which of these it is.
 */
public sealed interface Reply {
  /** {@code 202 Accepted}, empty body: every asynchronous call. */
  record Accepted() implements Reply {}

  /** {@code 200 OK}, empty body: the scheduler's UPDATE_FRAMEWORK. */
  record Ok() implements Reply {}

  /**
   * An error status with a plain-text body, such as {@code 400 "Framework cannot be found"}.
   * Messages are Mesos's own texts where the reference gives them.
   */
  record Failure(int status, String message) implements Reply {}

  /**
   * {@code 200 OK} and a RecordIO event stream in the negotiated media type. The HTTP layer sends
   * the headers ({@code Mesos-Stream-Id} when {@code streamId} is present), then calls {@code
   * opened} with the stream, on which the endpoint sends its first events (SUBSCRIBED, ...).
   */
  record Stream(Optional<String> streamId, Consumer<EventStream> opened) implements Reply {}

  static Reply accepted() {
    return new Accepted();
  }

  static Reply failure(int status, String message) {
    return new Failure(status, message);
  }
}
