package io.acceld.metrics;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The request line and headers of one HTTP/1.x request, read with hard size limits so that a client
 * cannot make the agent buffer more than a few kilobytes. The body is never read: the agent's
 * endpoints take none, and a request that announces one is answered and the connection closed.
 *
 * @param method the method, such as {@code GET}
 * @param path the target's path, without the query
 * @param headers header names in lower case; a repeated header keeps its last value
 */
record HttpRequestHead(String method, String path, Map<String, String> headers) {
  /** Longest request line accepted; longer gets 414. */
  static final int MAX_REQUEST_LINE = 8 * 1024;

  /** Most header bytes accepted, all lines together; more gets 431. */
  static final int MAX_HEADER_BYTES = 16 * 1024;

  /** Most header lines accepted; more gets 431. */
  static final int MAX_HEADERS = 100;

  HttpRequestHead {
    headers = Map.copyOf(headers);
  }

  Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
  }

  /** Whether the request announces a body (which the agent never reads). */
  boolean announcesBody() throws Rejected {
    if (headers.containsKey("transfer-encoding")) {
      return true;
    }
    String length = headers.get("content-length");
    if (length == null) {
      return false;
    }
    try {
      return Long.parseLong(length.strip()) != 0;
    } catch (NumberFormatException e) {
      throw new Rejected(400, "bad Content-Length");
    }
  }

  /** A request the agent will not serve, with the status that says why. */
  static final class Rejected extends Exception {
    private final int status;

    Rejected(int status, String reason) {
      super(reason, null, false, false);
      this.status = status;
    }

    int status() {
      return status;
    }
  }

  /**
   * Reads one request's head from {@code in}.
   *
   * @return empty if the connection closed before sending anything
   * @throws Rejected if the head is malformed, too big, or not HTTP/1.0 or 1.1
   * @throws IOException if reading fails (a timeout, a reset)
   */
  static Optional<HttpRequestHead> read(InputStream in) throws IOException, Rejected {
    Bounded bounded = new Bounded(in);
    String requestLine = bounded.line(MAX_REQUEST_LINE, 414, "request line too long");
    if (requestLine == null) {
      return Optional.empty();
    }
    String[] parts = requestLine.split(" ", -1);
    if (parts.length != 3 || parts[0].isEmpty() || !isToken(parts[0])) {
      throw new Rejected(400, "malformed request line");
    }
    String version = parts[2];
    if (!version.matches("HTTP/\\d\\.\\d")) {
      throw new Rejected(400, "malformed HTTP version");
    }
    if (!version.equals("HTTP/1.1") && !version.equals("HTTP/1.0")) {
      throw new Rejected(505, "only HTTP/1.0 and HTTP/1.1 are served");
    }
    String target = parts[1];
    if (!target.startsWith("/")) {
      throw new Rejected(400, "the target must be a path");
    }
    int query = target.indexOf('?');
    String path = query < 0 ? target : target.substring(0, query);

    Map<String, String> headers = new LinkedHashMap<>();
    int budget = MAX_HEADER_BYTES;
    for (int count = 0; ; count++) {
      String line = bounded.line(budget, 431, "request headers too large");
      if (line == null) {
        throw new Rejected(400, "connection closed inside the headers");
      }
      if (line.isEmpty()) {
        break;
      }
      if (count == MAX_HEADERS) {
        throw new Rejected(431, "too many request headers");
      }
      budget -= line.length() + 2;
      int colon = line.indexOf(':');
      if (colon <= 0 || !isToken(line.substring(0, colon))) {
        // also refuses obsolete line folding (a line starting with white space)
        throw new Rejected(400, "malformed header line");
      }
      headers.put(
          line.substring(0, colon).toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
    }
    return Optional.of(new HttpRequestHead(parts[0], path, headers));
  }

  private static boolean isToken(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return !s.isEmpty();
  }

  /** Reads CRLF- (or LF-) terminated lines, refusing any longer than a limit. */
  private static final class Bounded {
    private final InputStream in;

    Bounded(InputStream in) {
      this.in = in;
    }

    /** One line without its terminator; null at end of stream before any byte of it. */
    String line(int limit, int status, String tooLong) throws IOException, Rejected {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
      while (true) {
        int b = in.read();
        if (b < 0) {
          if (bytes.size() == 0) {
            return null;
          }
          throw new Rejected(400, "connection closed inside a line");
        }
        if (b == '\n') {
          break;
        }
        if (bytes.size() >= limit) {
          throw new Rejected(status, tooLong);
        }
        bytes.write(b);
      }
      byte[] line = bytes.toByteArray();
      int length = line.length > 0 && line[line.length - 1] == '\r' ? line.length - 1 : line.length;
      for (int i = 0; i < length; i++) {
        if (line[i] < 0x20 && line[i] != '\t' || line[i] == 0x7f) {
          throw new Rejected(400, "control character in the request head");
        }
      }
      // ISO-8859-1: every byte maps to one char, so nothing a client sends is lost or rejected here
      return new String(line, 0, length, StandardCharsets.ISO_8859_1);
    }
  }
}
