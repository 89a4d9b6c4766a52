package io.acceld.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceld.util.ClientText;
import io.acceld.util.JsonNodes;
import io.acceld.util.NamedThreads;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The few calls the DRA side makes to the API server, over the JDK's HTTP client with JSON trees:
 * GET, POST, PUT, DELETE and watch. Every call has a deadline; every body is read with a size
 * bound; every failure is an {@link ApiException} of a {@link ApiException.Kind} with a message
 * that quotes the server's {@code Status.message} escaped and bounded.
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
  private final ExecutorService executor;
  private final HttpClient client;

  public KubeApi(KubeConfig config, Duration timeout) {
    this(config, timeout, MAX_BODY);
  }

  KubeApi(KubeConfig config, Duration timeout, int maxBody) {
    this.config = Objects.requireNonNull(config, "config");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.maxBody = maxBody;
    this.executor = Executors.newCachedThreadPool(new NamedThreads("acceld-dra-http"));
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .executor(executor);
    if ("https".equals(config.server().getScheme())) {
      builder.sslContext(TlsContexts.of(config));
    }
    this.client = builder.build();
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

  private JsonNode call(String verb, String path, JsonNode body) throws ApiException {
    HttpRequest request = request(verb, path, body, timeout);
    HttpResponse<byte[]> response;
    try {
      // The request timeout ends at the headers; this one also bounds a slow body.
      response =
          client
              .sendAsync(request, BoundedBody.handler(maxBody))
              .get(timeout.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(ApiException.Kind.CONNECTION, verb + " " + path + ": interrupted", e);
    } catch (TimeoutException e) {
      throw new ApiException(
          ApiException.Kind.CONNECTION, verb + " " + path + ": no answer within " + timeout, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof BoundedBody.TooLarge) {
        throw new ApiException(
            ApiException.Kind.BAD_RESPONSE, verb + " " + path + ": " + cause.getMessage(), cause);
      }
      throw connection(verb, path, cause);
    }
    if (response.statusCode() / 100 != 2) {
      throw failure(verb, path, response.statusCode(), response.body());
    }
    try {
      return response.body().length == 0 ? JsonNodes.object() : JsonNodes.parse(response.body());
    } catch (IOException e) {
      throw new ApiException(
          ApiException.Kind.BAD_RESPONSE,
          verb + " " + path + ": the answer is not JSON: " + firstLine(e),
          e);
    }
  }

  /** An open watch: one event (a JSON object) per line until the server ends it. */
  public final class Watch implements AutoCloseable {
    private final InputStream in;
    private final String path;

    private Watch(InputStream in, String path) {
      this.in = in;
      this.path = path;
    }

    /**
     * The next event, or null when the server ended the stream.
     *
     * @throws ApiException when the stream breaks or an event is too large or not JSON
     */
    public JsonNode next() throws ApiException {
      byte[] line;
      try {
        line = readLine();
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

    /** Ends the watch; a thread blocked in {@link #next} gets an exception or the end. */
    @Override
    public void close() {
      try {
        in.close();
      } catch (IOException e) {
        // closing is all we wanted
      }
    }
  }

  /**
   * Opens a watch ({@code path} with {@code watch=true} in its query); the server's answer must
   * begin within the timeout, after which events arrive as they happen.
   */
  public Watch watch(String path) throws ApiException {
    HttpRequest request = request("GET", path, null, timeout);
    HttpResponse<InputStream> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(ApiException.Kind.CONNECTION, "WATCH " + path + ": interrupted", e);
    } catch (IOException e) {
      throw connection("WATCH", path, e);
    }
    if (response.statusCode() / 100 != 2) {
      byte[] body;
      try (InputStream in = response.body()) {
        body = in.readNBytes(64 << 10);
      } catch (IOException e) {
        body = new byte[0];
      }
      throw failure("WATCH", path, response.statusCode(), body);
    }
    return new Watch(new BufferedInputStream(response.body(), 64 << 10), path);
  }

  private HttpRequest request(String verb, String path, JsonNode body, Duration deadline)
      throws ApiException {
    URI uri = config.server().resolve(config.server().getPath().replaceAll("/$", "") + path);
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(uri)
            .timeout(deadline)
            .header("Accept", "application/json")
            .header("User-Agent", "acceld-dra");
    config.token().token().ifPresent(t -> builder.header("Authorization", "Bearer " + t));
    if (body != null) {
      builder
          .header("Content-Type", "application/json")
          .method(verb, HttpRequest.BodyPublishers.ofByteArray(JsonNodes.render(body)));
    } else {
      builder.method(verb, HttpRequest.BodyPublishers.noBody());
    }
    return builder.build();
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

  /** How long {@link #close} waits for the client's threads to end. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  /**
   * Ends the client's threads, and waits (at most {@link #CLOSE_WAIT}) until they have: an idle
   * pool thread ends as soon as it sees the interrupt, but on a busy node not before {@code
   * shutdownNow} returns, and a closed agent must leave none behind. Open watches end with them.
   */
  @Override
  public void close() {
    executor.shutdownNow();
    try {
      if (!executor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("The Kubernetes API client's threads did not end within {}", CLOSE_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
