package io.acceld.metrics;

import io.acceld.util.BoundedText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One response, complete in memory before a byte is sent, so a failing collector gives a 500, not a
 * truncated 200, and the length is always known.
 *
 * @param headers extra headers beside Content-Type, Content-Length and Connection
 */
record HttpReply(int status, String contentType, Map<String, String> headers, byte[] body) {
  static final String PLAIN = "text/plain; charset=utf-8";

  HttpReply {
    headers = Map.copyOf(headers);
  }

  /**
   * The most a plain-text answer may hold, in UTF-8 bytes: room for {@code /healthz}'s and {@code
   * /readyz}'s reasons on a large node, and a bound on what an error's reason may say.
   */
  static final int MAX_TEXT_BYTES = 16 * 1024;

  static HttpReply text(int status, String body) {
    return new HttpReply(
        status,
        PLAIN,
        Map.of(),
        BoundedText.bound(body, MAX_TEXT_BYTES).getBytes(StandardCharsets.UTF_8));
  }

  static HttpReply of(int status, String contentType, String body) {
    return new HttpReply(status, contentType, Map.of(), body.getBytes(StandardCharsets.UTF_8));
  }

  HttpReply withHeader(String name, String value) {
    Map<String, String> more = new java.util.LinkedHashMap<>(headers);
    more.put(name, value);
    return new HttpReply(status, contentType, more, body);
  }

  /**
   * Writes the reply as HTTP/1.1 with {@code Connection: close}: every connection carries one
   * request, so no idle keep-alive connection ever holds a thread. For HEAD the body is left out
   * and the headers are those GET would send.
   */
  void writeTo(OutputStream out, boolean head) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + (head ? 0 : body.length));
    StringBuilder h = new StringBuilder(256);
    h.append("HTTP/1.1 ").append(status).append(' ').append(reason(status)).append("\r\n");
    h.append("Content-Type: ").append(contentType).append("\r\n");
    h.append("Content-Length: ").append(body.length).append("\r\n");
    headers.forEach((name, value) -> h.append(name).append(": ").append(value).append("\r\n"));
    h.append("Connection: close\r\n\r\n");
    bytes.write(h.toString().getBytes(StandardCharsets.ISO_8859_1));
    if (!head) {
      bytes.write(body);
    }
    bytes.writeTo(out);
    out.flush();
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout";
      case 413 -> "Content Too Large";
      case 414 -> "URI Too Long";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 503 -> "Service Unavailable";
      case 505 -> "HTTP Version Not Supported";
      default -> "Status";
    };
  }
}
