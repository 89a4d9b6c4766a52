package io.acceld.mesos.http;

import com.sun.net.httpserver.HttpExchange;
import io.acceld.mesos.wire.MediaType;
import io.acceld.util.BoundedText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** Small, shared pieces of answering a JDK {@link HttpExchange}. */
final class Exchanges {
  /** The most a plain-text answer (an error's reason) may hold, in UTF-8 bytes. */
  static final int MAX_TEXT_BYTES = 1024;

  static final String TEXT = "text/plain; charset=utf-8";

  private Exchanges() {}

  /** A request body that exceeds the limit: answered 413. */
  static final class BodyTooLargeException extends Exception {
    BodyTooLargeException(int limit) {
      super("Request body exceeds " + limit + " bytes");
    }
  }

  static Optional<String> header(HttpExchange exchange, String name) {
    return Optional.ofNullable(exchange.getRequestHeaders().getFirst(name));
  }

  /**
   * The request body, read only if it fits in {@code limit} bytes: a declared Content-Length over
   * the limit is refused before reading anything, a chunked body as soon as it passes it.
   */
  static byte[] readBody(HttpExchange exchange, int limit)
      throws IOException, BodyTooLargeException {
    Optional<String> declared = header(exchange, "Content-Length");
    if (declared.isPresent()) {
      try {
        if (Long.parseLong(declared.get().trim()) > limit) {
          throw new BodyTooLargeException(limit);
        }
      } catch (NumberFormatException e) {
        // the JDK server has already refused a malformed length; let the read decide
      }
    }
    InputStream in = exchange.getRequestBody();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    int n;
    while ((n = in.read(buffer)) >= 0) {
      if (body.size() + n > limit) {
        throw new BodyTooLargeException(limit);
      }
      body.write(buffer, 0, n);
    }
    return body.toByteArray();
  }

  /**
   * Reads and drops what is left of a refused request's body, at most {@code limit} bytes: a client
   * still sending when the server closes its socket gets a reset and may lose the answer (the JDK
   * server drains only {@code sun.net.httpserver.drainAmount} itself, a JVM-wide value read once).
   * True when the body ended within the limit; reads are bounded in time by {@code
   * sun.net.httpserver.maxReqTime}.
   */
  static boolean discardBody(HttpExchange exchange, long limit) {
    byte[] buffer = new byte[8192];
    long left = limit;
    try (InputStream in = exchange.getRequestBody()) {
      int n;
      while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) >= 0) {
        left -= n;
      }
      return in.read() < 0;
    } catch (IOException e) {
      return false;
    }
  }

  /** A plain-text answer: Mesos answers its errors as plain text. */
  static void text(HttpExchange exchange, int status, String body) throws IOException {
    // Errors often name what the client sent (IDs): the client must not size the answer.
    send(
        exchange,
        status,
        TEXT,
        BoundedText.bound(body, MAX_TEXT_BYTES).getBytes(StandardCharsets.UTF_8));
  }

  /** An answer with no body, such as 202. */
  /**
   * The codec a SUBSCRIBE's event stream is written in, from its Accept header; when Accept allows
   * neither, answers 406 with Mesos's text and returns empty. Shared by both APIs' subscribe.
   */
  static Optional<MediaType> streamMediaType(HttpExchange exchange) throws IOException {
    Optional<MediaType> accept = MediaType.negotiate(header(exchange, "Accept"));
    if (accept.isEmpty()) {
      text(
          exchange,
          406,
          "Expecting 'Accept' to allow '"
              + MediaType.JSON.value()
              + "' or '"
              + MediaType.PROTOBUF.value()
              + "'");
    }
    return accept;
  }

  static void empty(HttpExchange exchange, int status) throws IOException {
    exchange.sendResponseHeaders(status, -1);
    exchange.close();
  }

  static void send(HttpExchange exchange, int status, String contentType, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", contentType);
    if (exchange.getRequestMethod().equals("HEAD")) {
      // A length here would make the JDK server log a WARNING for every HEAD request.
      exchange.sendResponseHeaders(status, -1);
      exchange.close();
      return;
    }
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /** 405 with the one method the route takes. */
  static void methodNotAllowed(HttpExchange exchange, String allowed) throws IOException {
    exchange.getResponseHeaders().set("Allow", allowed);
    text(
        exchange,
        405,
        "Expecting one of { '" + allowed + "' }, but received '" + methodShown(exchange) + "'");
  }

  /** The request's method, safe to echo: the JDK server passes any token through. */
  static String methodShown(HttpExchange exchange) {
    String method = exchange.getRequestMethod();
    return method.length() <= 16 && method.chars().allMatch(c -> c >= 'A' && c <= 'Z')
        ? method
        : "(other)";
  }
}
