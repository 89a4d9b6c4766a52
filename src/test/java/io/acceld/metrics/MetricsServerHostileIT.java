package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.config.HostPort;
import io.acceld.testing.LogCapture;
import io.acceld.testing.SelfSignedCertificate;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a hostile or broken client can do to the HTTP endpoints: none of it may take {@code
 * /healthz} down (the kubelet would restart the agent), and every bad request gets a clear status.
 */
class MetricsServerHostileIT {
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(PROBE_TIMEOUT).build();
  private final List<Socket> clients = new ArrayList<>();
  private MetricsServer server;

  @TempDir Path dir;

  @AfterEach
  void stop() throws IOException {
    for (Socket client : clients) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
    registry.close();
  }

  private void start(MetricsAccess access, HttpListener.Limits limits) throws IOException {
    server =
        MetricsServer.start(
            new HostPort("127.0.0.1", 0),
            access,
            limits,
            registry,
            () -> true,
            () -> true,
            () -> "[]\n");
  }

  private void start() throws IOException {
    start(MetricsAccess.open(), HttpListener.Limits.DEFAULT);
  }

  @Test
  void clientsThatSendARequestLineAndThenNothingDoNotStarveTheProbe() throws Exception {
    start();
    for (int i = 0; i < 8; i++) {
      silent("GET /healthz HTTP/1.1\r\n");
    }

    for (int i = 0; i < 5; i++) {
      assertThat(probe("/healthz").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aHugeAnnouncedBodyIsRefusedAtOnceWithoutBeingWaitedFor() throws Exception {
    start();
    Socket post = silent("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n");
    Socket get = silent("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n");

    assertThat(statusLine(post)).isEqualTo("HTTP/1.1 405 Method Not Allowed");
    assertThat(statusLine(get)).isEqualTo("HTTP/1.1 400 Bad Request");
    assertThat(probe("/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void aSilentConnectionIsClosedAtItsDeadline() throws Exception {
    start(MetricsAccess.open(), new HttpListener.Limits(Duration.ofMillis(300), 64));
    Socket slow = silent("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    slow.setSoTimeout(5000);

    // closed by the server (end of stream), not by our own read timeout
    assertThat(slow.getInputStream().read()).isEqualTo(-1);
  }

  @Test
  void headIsAnsweredLikeGetWithoutABodyAndWithoutWarnings() throws Exception {
    start();
    try (LogCapture http = LogCapture.of(HttpListener.class);
        LogCapture metrics = LogCapture.of(MetricsServer.class)) {
      HttpResponse<String> head =
          this.http.send(
              HttpRequest.newBuilder(uri("/healthz"))
                  .method("HEAD", HttpRequest.BodyPublishers.noBody())
                  .timeout(PROBE_TIMEOUT)
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.headers().firstValue("Content-Length")).hasValue("3");
      assertThat(head.body()).isEmpty();
      assertThat(http.warnings()).isEmpty();
      assertThat(metrics.warnings()).isEmpty();
    }
  }

  @Test
  void unknownHttpVersionsAndMalformedHeadsAreRefused() throws Exception {
    start();
    assertThat(exchange("GET /healthz HTTP/9.9\r\n\r\n"))
        .startsWith("HTTP/1.1 505 HTTP Version Not Supported");
    assertThat(exchange("GET /healthz HTTP/one\r\n\r\n")).startsWith("HTTP/1.1 400 ");
    assertThat(exchange("GET /healthz\r\n\r\n")).startsWith("HTTP/1.1 400 ");
    assertThat(exchange("GET /healthz HTTP/1.1\r\nno colon here\r\n\r\n"))
        .startsWith("HTTP/1.1 400 ");
    assertThat(exchange("GET /" + "a".repeat(9000) + " HTTP/1.1\r\n\r\n"))
        .startsWith("HTTP/1.1 414 ");
    assertThat(exchange("GET /healthz HTTP/1.1\r\nX-Big: " + "b".repeat(20_000) + "\r\n\r\n"))
        .startsWith("HTTP/1.1 431 ");
    assertThat(exchange("GET /healthz HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.1 200 OK");
  }

  @Test
  void aBearerTokenGuardsMetricsAndDevicesButNotTheProbes() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "s3cret\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
    start(MetricsAccess.fromSettings("bearer:" + token, "", ""), HttpListener.Limits.DEFAULT);

    assertThat(probe("/metrics").statusCode()).isEqualTo(401);
    assertThat(probe("/metrics").headers().firstValue("WWW-Authenticate")).isPresent();
    assertThat(probe("/devices").statusCode()).isEqualTo(401);
    assertThat(withToken("/metrics", "wrong").statusCode()).isEqualTo(401);
    assertThat(withToken("/metrics", "s3cret").statusCode()).isEqualTo(200);
    assertThat(withToken("/devices", "s3cret").body()).isEqualTo("[]\n");
    assertThat(probe("/healthz").statusCode()).isEqualTo(200);
    assertThat(probe("/readyz").statusCode()).isEqualTo(200);
  }

  @Test
  void aTokenFileOthersCanReadIsRefused() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "s3cret\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));

    assertThatThrownBy(() -> MetricsAccess.fromSettings("bearer:" + token, "", ""))
        .hasMessageContaining(token.toString())
        .hasMessageContaining("0600");
    assertThatThrownBy(() -> MetricsAccess.fromSettings("basic:" + token, "", ""))
        .hasMessageContaining("bearer:FILE");
  }

  @Test
  void tlsServesAllEndpointsFromCertManagerStylePemFiles() throws Exception {
    Path crt = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    SelfSignedCertificate.write(crt, key, "-traditional");
    start(
        MetricsAccess.fromSettings("", crt.toString(), key.toString()),
        HttpListener.Limits.DEFAULT);

    HttpClient https =
        HttpClient.newBuilder().sslContext(SelfSignedCertificate.trusting(crt)).build();
    HttpResponse<String> healthz =
        https.send(
            HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + "/healthz"))
                .timeout(PROBE_TIMEOUT)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(healthz.statusCode()).isEqualTo(200);
    assertThat(healthz.body()).isEqualTo("ok\n");
    // a plain-HTTP client gets nothing, and does not hold up the probe
    silent("GET /healthz HTTP/1.1\r\n\r\n");
    assertThat(
            https
                .send(
                    HttpRequest.newBuilder(
                            URI.create("https://localhost:" + server.port() + "/metrics"))
                        .timeout(PROBE_TIMEOUT)
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(200);
  }

  @Test
  void aPkcs8KeyLoadsAndAMismatchedPairIsRefused() throws Exception {
    Path crt = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    SelfSignedCertificate.write(crt, key, null);
    assertThat(Files.readString(key)).contains("BEGIN PRIVATE KEY");
    MetricsAccess.fromSettings("", crt.toString(), key.toString());

    assertThatThrownBy(() -> MetricsAccess.fromSettings("", crt.toString(), ""))
        .hasMessageContaining("--metrics-tls-key");
    assertThatThrownBy(() -> MetricsAccess.fromSettings("", key.toString(), key.toString()))
        .hasMessageContaining(key.toString());
  }

  /** A connection that sends {@code bytes} and then nothing, kept open until the test ends. */
  private Socket silent(String bytes) throws IOException {
    Socket socket = new Socket("127.0.0.1", server.port());
    clients.add(socket);
    socket.getOutputStream().write(bytes.getBytes(StandardCharsets.ISO_8859_1));
    socket.getOutputStream().flush();
    return socket;
  }

  private static String statusLine(Socket socket) throws IOException {
    socket.setSoTimeout((int) PROBE_TIMEOUT.toMillis());
    return readAll(socket).lines().findFirst().orElse("");
  }

  private String exchange(String request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout((int) PROBE_TIMEOUT.toMillis());
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      return readAll(socket);
    }
  }

  private static String readAll(Socket socket) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      socket.getInputStream().transferTo(out);
    } catch (SocketTimeoutException e) {
      // what arrived before the timeout is the answer
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  private HttpResponse<String> probe(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(path)).timeout(PROBE_TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> withToken(String path, String token) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(path))
            .header("Authorization", "Bearer " + token)
            .timeout(PROBE_TIMEOUT)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }
}
