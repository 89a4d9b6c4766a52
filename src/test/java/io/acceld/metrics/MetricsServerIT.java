package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.HostPort;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What Prometheus and the kubelet's probes see when they talk to the agent over HTTP. */
class MetricsServerIT {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicBoolean alive = new AtomicBoolean(true);
  private final AtomicBoolean ready = new AtomicBoolean(false);
  private final HttpClient http = HttpClient.newHttpClient();
  private MetricsServer server;

  @BeforeEach
  void start() throws Exception {
    Counter.builder("acceld.test.requests")
        .description("Requests seen by the test")
        .tag("resource", "nvidia.com/gpu")
        .register(registry)
        .increment(3);
    server = MetricsServer.start(new HostPort("127.0.0.1", 0), registry, alive::get, ready::get);
  }

  @AfterEach
  void stop() {
    server.close();
    registry.close();
  }

  @Test
  void portZeroBindsAFreePort() {
    assertThat(server.port()).isPositive();
  }

  @Test
  void metricsDefaultToPrometheusText() throws Exception {
    assertThat(scrape(null, "text/plain; version=0.0.4; charset=utf-8"))
        .contains("# HELP acceld_test_requests_total Requests seen by the test")
        .contains("# TYPE acceld_test_requests_total counter")
        .contains("acceld_test_requests_total{resource=\"nvidia.com/gpu\"} 3.0")
        .doesNotContain("# EOF");
  }

  @Test
  void metricsSpeakOpenMetricsWhenAskedTo() throws Exception {
    // what Prometheus 2.x sends
    String accept =
        "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
            + "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    assertThat(scrape(accept, "application/openmetrics-text; version=1.0.0; charset=utf-8"))
        .contains("# TYPE acceld_test_requests counter")
        .contains("acceld_test_requests_total{resource=\"nvidia.com/gpu\"} 3.0")
        .endsWith("# EOF\n");
  }

  @Test
  void aScraperPreferringTheProtobufFormatGetsText() throws Exception {
    // Prometheus 3 with native histograms on puts the protobuf format first; the shipped jar has
    // no protobuf exposition writer, so the answer must be the text format, not an error.
    String accept =
        "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
            + "encoding=delimited;q=0.6,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";
    assertThat(scrape(accept, "text/plain; version=0.0.4; charset=utf-8"))
        .contains("acceld_test_requests_total{resource=\"nvidia.com/gpu\"} 3.0");
  }

  /** A 200 from /metrics in {@code contentType}, asked for with {@code accept}: its body. */
  private String scrape(String accept, String contentType) throws Exception {
    HttpResponse<String> response = get("/metrics", accept);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue(contentType);
    return response.body();
  }

  @Test
  void healthzFollowsLiveness() throws Exception {
    assertThat(get("/healthz", null)).satisfies(ok());

    alive.set(false);
    HttpResponse<String> down = get("/healthz", null);
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(down.body()).isEqualTo("not alive\n");

    alive.set(true);
    assertThat(get("/healthz", null)).satisfies(ok());
  }

  @Test
  void healthzStaysUpButSaysWhatIsDegraded() throws Exception {
    java.util.concurrent.atomic.AtomicReference<List<String>> problems =
        new java.util.concurrent.atomic.AtomicReference<>(List.of());
    server.degradedBy(problems::get);
    assertThat(get("/healthz", null).body()).isEqualTo("ok\n");

    problems.set(List.of("the lease checkpoint cannot be written since 2026-12-01T12:00:00Z"));
    HttpResponse<String> degraded = get("/healthz", null);

    assertThat(degraded.statusCode()).isEqualTo(200);
    assertThat(degraded.body())
        .isEqualTo(
            "ok\ndegraded: the lease checkpoint cannot be written since 2026-12-01T12:00:00Z\n");
  }

  @Test
  void healthzFailsWithTheReasonWhileALoopIsStuck() throws Exception {
    java.util.concurrent.atomic.AtomicReference<List<String>> stuck =
        new java.util.concurrent.atomic.AtomicReference<>(List.of());
    server.notAliveBecause(stuck::get);
    assertThat(get("/healthz", null)).satisfies(ok());

    stuck.set(List.of("Device discovery is stuck: its current turn has run for 130 s"));
    HttpResponse<String> down = get("/healthz", null);

    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(down.body())
        .isEqualTo("not alive: Device discovery is stuck: its current turn has run for 130 s\n");
  }

  @Test
  void readyzFollowsReadiness() throws Exception {
    HttpResponse<String> notYet = get("/readyz", null);
    assertThat(notYet.statusCode()).isEqualTo(503);
    assertThat(notYet.body()).isEqualTo("not ready\n");

    ready.set(true);
    assertThat(get("/readyz", null)).satisfies(ok());
  }

  @Test
  void aProbeThatThrowsIsAFailedProbe() throws Exception {
    server.close();
    server =
        MetricsServer.start(
            new HostPort("127.0.0.1", 0),
            registry,
            () -> {
              throw new IllegalStateException("inventory never published");
            },
            ready::get);

    HttpResponse<String> response = get("/healthz", null);
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).contains("not alive").contains("inventory never published");
  }

  @Test
  void unknownPathsAre404() throws Exception {
    assertThat(get("/", null).statusCode()).isEqualTo(404);
    assertThat(get("/metricsx", null).statusCode()).isEqualTo(404);
    assertThat(get("/metrics/extra", null).statusCode()).isEqualTo(404);
  }

  @Test
  void otherMethodsAre405() throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uri("/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.headers().firstValue("Allow")).hasValue("GET, HEAD");
  }

  @Test
  void closeFreesThePort() throws Exception {
    int port = server.port();
    server.close();

    server = MetricsServer.start(new HostPort("127.0.0.1", port), registry, alive::get, ready::get);
    assertThat(get("/healthz", null)).satisfies(ok());
  }

  private static org.assertj.core.api.ThrowingConsumer<HttpResponse<String>> ok() {
    return r -> {
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("ok\n");
    };
  }

  private HttpResponse<String> get(String path, String accept) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
    if (accept != null) {
      request.header("Accept", accept);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private java.net.URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }
}
