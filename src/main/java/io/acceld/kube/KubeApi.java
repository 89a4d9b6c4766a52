package io.acceld.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceld.util.ClientText;
import io.acceld.util.JsonNodes;
import io.acceld.util.NamedThreads;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The few calls the DRA side and the node labels make to the API server, with JSON trees: GET,
 * POST, PUT, DELETE and watch, each on a connection of its own ({@link Http1Exchange} says why not
 * the JDK's HTTP client). Every call has a deadline; every body is read with a size bound; every
 * failure is an {@link ApiException} of a {@link ApiException.Kind} with a message that quotes the
 * server's {@code Status.message} escaped and bounded.
 */
public final class KubeApi implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeApi.class);

  /** The largest body read: a full slice of 128 devices is about 100 KiB. */
  public static final int MAX_BODY = 4 << 20;

  /** How much of the server's own error message is quoted. */
  public static final int MAX_MESSAGE = 300;

  private final KubeConfig config;
  private final Duration timeout;
  private final int maxBody;
  private final Http1Exchange.Endpoint endpoint;
  private final String basePath;
  private final Set<Http1Exchange> open = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor watchdog;
  private volatile boolean closed;

  public KubeApi(KubeConfig config, Duration timeout) {
    this(config, timeout, MAX_BODY);
  }

  KubeApi(KubeConfig config, Duration timeout, int maxBody) {
    this.config = Objects.requireNonNull(config, "config");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.maxBody = maxBody;
    URI server = config.server();
    boolean https = "https".equals(server.getScheme());
    String host = server.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1); // an IPv6 literal
    }
    int port = server.getPort() >= 0 ? server.getPort() : https ? 443 : 80;
    this.endpoint =
        new Http1Exchange.Endpoint(
            host, port, https ? TlsContexts.of(config).getSocketFactory() : null);
    this.basePath = server.getRawPath() == null ? "" : server.getRawPath().replaceAll("/$", "");
    // Closes a call's connection at its deadline; its one thread ends when no call is in flight.
    this.watchdog = new ScheduledThreadPoolExecutor(1, new NamedThreads("acceld-kube-deadline"));
    watchdog.setRemoveOnCancelPolicy(true);
    watchdog.setKeepAliveTime(5, TimeUnit.SECONDS);
    watchdog.allowCoreThreadTimeOut(true);
  }

  public KubeConfig config() {
    return config;
  }

  /** {@code path?k=v&...}, each value URL-encoded; empty values left out. */
  public static String withQuery(String path, Map<String, String> query) {
    StringJoiner joined = new StringJoiner("&", path + "?", "").setEmptyValue(path);
    query.forEach(
        (k, v) -> {
          if (!v.isEmpty()) {
            joined.add(k + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8));
          }
        });
    return joined.toString();
  }

  /** A path segment URL-encoded (names are DNS labels, but a claim name comes from a peer). */
  public static String segment(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
  }

  public JsonNode get(String path) throws ApiException {
    return call("GET", path, null);
  }

  public JsonNode create(String path, JsonNode body) throws ApiException {
    return call("POST", path, body);
  }

  public JsonNode update(String path, JsonNode body) throws ApiException {
    return call("PUT", path, body);
  }

  public void delete(String path) throws ApiException {
    call("DELETE", path, null);
  }

  /**
   * One call: connected and answered (the response head) within the timeout, the whole body read
   * within twice the timeout, so a server that trickles its answer cannot hold the caller longer.
   */
  private JsonNode call(String verb, String path, JsonNode body) throws ApiException {
    long started = System.nanoTime();
    int status;
    byte[] answer;
    try (Http1Exchange exchange =
        send(verb, path, body == null ? null : JsonNodes.render(body), started)) {
      exchange.extendDeadline(started + 2 * timeout.toNanos());
      status = exchange.status();
      answer = readBounded(exchange.body(), maxBody);
    } catch (IOException e) {
      throw failed(verb, path, e);
    }
    if (status / 100 != 2) {
      throw failure(verb, path, status, answer);
    }
    try {
      return answer.length == 0 ? JsonNodes.object() : JsonNodes.parse(answer);
    } catch (IOException e) {
      throw new ApiException(
          ApiException.Kind.BAD_RESPONSE,
          verb + " " + path + ": the answer is not JSON: " + firstLine(e),
          e);
    }
  }

  /**
   * Sends a request; the exchange is open (and closed by {@link #close}) until its caller closes
   * it.
   */
  private Http1Exchange send(String verb, String path, byte[] body, long started)
      throws IOException, ApiException {
    if (closed) {
      throw closedError(verb, path, null);
    }
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Accept", "application/json");
    headers.put("User-Agent", "acceld-dra");
    config.token().token().ifPresent(t -> headers.put("Authorization", "Bearer " + t));
    if (body != null) {
      headers.put("Content-Type", "application/json");
    }
    Http1Exchange exchange;
    try {
      exchange =
          Http1Exchange.send(
              endpoint,
              verb,
              basePath + path,
              headers,
              body,
              started + timeout.toNanos(),
              open,
              watchdog);
    } catch (RejectedExecutionException e) { // the watchdog is shut down: closed meanwhile
      throw closedError(verb, path, e);
    }
    if (closed) { // closed while connecting: close() may have missed this one
      exchange.close();
      throw closedError(verb, path, null);
    }
    return exchange;
  }

  /** The body was larger than allowed. */
  private static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge(int max) {
      super("the answer is larger than " + max + " bytes");
    }
  }

  /** All of {@code in}, or {@link TooLarge} after reading at most {@code max + 1} bytes. */
  private static byte[] readBounded(InputStream in, int max) throws IOException {
    byte[] bytes = in.readNBytes(max + 1);
    if (bytes.length > max) {
      throw new TooLarge(max);
    }
    return bytes;
  }

  /** An open watch: one event (a JSON object) per line until the server ends it. */
  public final class Watch implements AutoCloseable {
    private final Http1Exchange exchange;
    private final InputStream in;
    private final String path;

    private Watch(Http1Exchange exchange, String path) {
      this.exchange = exchange;
      // Events are read a byte at a time to their newline: from a buffer, not through the
      // chunk framing for every byte.
      this.in = new BufferedInputStream(exchange.body(), 16 << 10);
      this.path = path;
    }

    /**
     * The next event, or null when the server ended the stream.
     *
     * @throws ApiException when the stream breaks, stays silent too long, or an event is too large
     *     or not JSON
     */
    public JsonNode next() throws ApiException {
      byte[] line;
      try {
        line = readLine();
      } catch (Http1Exchange.MalformedResponse e) {
        throw badResponse("WATCH", path, e);
      } catch (IOException e) {
        throw connection("WATCH", path, e);
      }
      if (line == null) {
        return null;
      }
      try {
        return JsonNodes.parse(line);
      } catch (IOException e) {
        throw new ApiException(
            ApiException.Kind.BAD_RESPONSE,
            "WATCH " + path + ": an event is not JSON: " + firstLine(e),
            e);
      }
    }

    private byte[] readLine() throws IOException, ApiException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      while (true) {
        int b = in.read();
        if (b < 0) {
          return line.size() == 0 ? null : line.toByteArray();
        }
        if (b == '\n') {
          if (line.size() > 0) {
            return line.toByteArray();
          }
          continue;
        }
        if (line.size() >= maxBody) {
          throw new ApiException(
              ApiException.Kind.BAD_RESPONSE,
              "WATCH " + path + ": an event is larger than " + maxBody + " bytes",
              null);
        }
        line.write(b);
      }
    }

    /** Ends the watch; a thread blocked in {@link #next} gets an exception or the end at once. */
    @Override
    public void close() {
      exchange.close();
    }
  }

  /**
   * Opens a watch ({@code path} with {@code watch=true} and {@code timeoutSeconds} in its query):
   * the server's answer must begin within the timeout; after that, events arrive as they happen,
   * and a stream silent for longer than {@code quiet} (the server's own timeout and then some: it
   * should have ended the watch) is taken for a dead connection.
   */
  public Watch watch(String path, Duration quiet) throws ApiException {
    Http1Exchange exchange;
    try {
      exchange = send("GET", path, null, System.nanoTime());
    } catch (IOException e) {
      throw failed("WATCH", path, e);
    }
    if (exchange.status() / 100 != 2) {
      byte[] body;
      try {
        body = exchange.body().readNBytes(64 << 10);
      } catch (IOException e) {
        body = new byte[0];
      } finally {
        exchange.close();
      }
      throw failure("WATCH", path, exchange.status(), body);
    }
    exchange.streaming(quiet);
    return new Watch(exchange, path);
  }

  /** A status that is not a success, with the server's {@code Status.message} if it sent one. */
  public static ApiException failure(String verb, String path, int status, byte[] body) {
    String message = "";
    try {
      JsonNode answer = JsonNodes.parse(body);
      if (answer != null && answer.path("message").isTextual()) {
        message = answer.path("message").asText();
      }
    } catch (IOException e) {
      // not a Status: the status code alone says it
    }
    ApiException.Kind kind = ApiException.Kind.ofStatus(status);
    return new ApiException(
        kind,
        status,
        verb
            + " "
            + path
            + ": HTTP "
            + status
            + " ("
            + kind.tag()
            + ")"
            + (message.isEmpty() ? "" : ": " + ClientText.quote(message, MAX_MESSAGE)));
  }

  /**
   * A call (or a watch's opening) that got no usable answer, by why: too large or malformed is
   * {@code BAD_RESPONSE}; past its deadline or no connection is {@code CONNECTION}.
   */
  private ApiException failed(String verb, String path, IOException e) {
    if (e instanceof TooLarge) {
      return new ApiException(
          ApiException.Kind.BAD_RESPONSE, verb + " " + path + ": " + e.getMessage(), e);
    }
    if (e instanceof Http1Exchange.MalformedResponse) {
      return badResponse(verb, path, e);
    }
    if (e instanceof SocketTimeoutException) {
      return new ApiException(
          ApiException.Kind.CONNECTION, verb + " " + path + ": no answer within " + timeout, e);
    }
    return connection(verb, path, e);
  }

  private static ApiException closedError(String verb, String path, Throwable cause) {
    return new ApiException(
        ApiException.Kind.CONNECTION, verb + " " + path + ": the client is closed", cause);
  }

  /** An answer that is not a bounded HTTP/1.x response; the message says what was wrong. */
  private static ApiException badResponse(String verb, String path, IOException cause) {
    return new ApiException(
        ApiException.Kind.BAD_RESPONSE,
        verb + " " + path + ": " + cause.getMessage(), // what the server sent is quoted there
        cause);
  }

  private static ApiException connection(String verb, String path, Throwable cause) {
    String what = cause == null ? "no answer" : cause.getClass().getSimpleName();
    String detail = cause == null || cause.getMessage() == null ? "" : ": " + firstLine(cause);
    return new ApiException(
        ApiException.Kind.CONNECTION,
        verb + " " + path + ": connection failed: " + what + detail,
        cause);
  }

  private static String firstLine(Throwable e) {
    String text = String.valueOf(e.getMessage());
    int newline = text.indexOf('\n');
    return ClientText.escape(newline < 0 ? text : text.substring(0, newline));
  }

  /** How long {@link #close} waits for the deadline thread to end. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  /**
   * Ends every call and watch in progress (each with an exception at once, as its connection
   * closes), and the deadline thread, awaited (at most {@link #CLOSE_WAIT}): a closed agent leaves
   * no thread behind. Later calls fail at once.
   */
  @Override
  public void close() {
    closed = true;
    open.forEach(Http1Exchange::close);
    watchdog.shutdownNow();
    try {
      if (!watchdog.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("The Kubernetes API client's deadline thread did not end within {}", CLOSE_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
