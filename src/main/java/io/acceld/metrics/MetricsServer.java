package io.acceld.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.acceld.config.HostPort;
import io.acceld.util.NamedThreads;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code /metrics}, {@code /healthz} and {@code /readyz} over plain HTTP with the JDK's
 * built-in server, so the agent needs no web framework for three tiny endpoints.
 *
 * <ul>
 *   <li>{@code GET /metrics}: the registry in Prometheus text format 0.0.4, or OpenMetrics 1.0 when
 *       the {@code Accept} header asks for {@code application/openmetrics-text}.
 *   <li>{@code GET /healthz}: 200 {@code ok} while {@code alive} holds, else 503 (liveness: the
 *       kubelet restarts the pod). While the agent serves but something is degraded (the lease
 *       checkpoint cannot be written, NVML events are unavailable) it still answers 200, with one
 *       {@code degraded: ...} line per problem: a restart would not mend a full disk, and would
 *       lose the leases only memory holds.
 *   <li>{@code GET /readyz}: 200 {@code ok} while {@code ready} holds and nothing keeps the node
 *       unready ({@link #notReadyBecause}), else 503 (readiness) with one {@code not ready: ...}
 *       line per reason, so {@code kubectl describe pod} says why.
 *   <li>Other paths 404, other methods 405.
 * </ul>
 *
 * <p>Two threads are plenty: Prometheus scrapes every few seconds and the probes are tiny.
 */
public final class MetricsServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetricsServer.class);

  // The exposition writers are a runtime-only dependency of Micrometer, so their constants are
  // spelled out here; scrape(contentType) picks the writer from these same strings.
  static final String TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  static final String OPENMETRICS_CONTENT_TYPE =
      "application/openmetrics-text; version=1.0.0; charset=utf-8";
  private static final String PLAIN = "text/plain; charset=utf-8";
  private static final String JSON = "application/json";
  private static final int THREADS = 2;

  private final HttpServer server;
  private final ExecutorService executor;
  private final PrometheusMeterRegistry registry;
  private final BooleanSupplier alive;
  private final BooleanSupplier ready;
  private final Supplier<String> devices;
  private Supplier<List<String>> degraded = List::of;
  private Supplier<List<String>> unready = List::of;

  private MetricsServer(
      HttpServer server,
      PrometheusMeterRegistry registry,
      BooleanSupplier alive,
      BooleanSupplier ready,
      Supplier<String> devices) {
    this.server = server;
    this.registry = registry;
    this.alive = alive;
    this.ready = ready;
    this.devices = devices;
    this.executor = Executors.newFixedThreadPool(THREADS, new NamedThreads("acceld-metrics-http"));
    server.setExecutor(executor);
    server.createContext("/", this::handle);
  }

  /**
   * Binds {@code address} (port 0 picks a free port, see {@link #port()}) and starts serving.
   *
   * @throws IOException if the address cannot be bound, e.g. the port is taken
   */
  public static MetricsServer start(
      HostPort address,
      PrometheusMeterRegistry registry,
      BooleanSupplier alive,
      BooleanSupplier ready)
      throws IOException {
    return start(address, registry, alive, ready, () -> "[]\n");
  }

  /**
   * As {@link #start(HostPort, PrometheusMeterRegistry, BooleanSupplier, BooleanSupplier)}, also
   * serving {@code GET /devices}: the live inventory as JSON, for {@code acceld devices --agent}.
   */
  public static MetricsServer start(
      HostPort address,
      PrometheusMeterRegistry registry,
      BooleanSupplier alive,
      BooleanSupplier ready,
      Supplier<String> devices)
      throws IOException {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(alive, "alive");
    Objects.requireNonNull(ready, "ready");
    HttpServer http = HttpServer.create(new InetSocketAddress(address.host(), address.port()), 0);
    MetricsServer server = new MetricsServer(http, registry, alive, ready, devices);
    http.start();
    // As the operator wrote it (0.0.0.0:9445), not as Java prints the bound socket
    // (/[0:0:0:0:0:0:0:0]:9445); only a port 0 is replaced, by the port the system picked.
    log.info(
        "Serving /metrics, /healthz, /readyz and /devices on {}",
        new HostPort(address.host(), server.port()));
    return server;
  }

  /**
   * What {@code /healthz} reports beside {@code ok}: one sentence per degraded part. Set once,
   * before the server is asked; the supplier must be cheap and never block.
   */
  public MetricsServer degradedBy(Supplier<List<String>> problems) {
    this.degraded = Objects.requireNonNull(problems, "problems");
    return this;
  }

  /**
   * What keeps {@code /readyz} at 503 even while {@code ready} holds: one sentence per reason (the
   * node lacks the devices the operator expects). Set once, before the server is asked; the
   * supplier must be cheap and never block.
   */
  public MetricsServer notReadyBecause(Supplier<List<String>> reasons) {
    this.unready = Objects.requireNonNull(reasons, "reasons");
    return this;
  }

  /** The bound address; with port 0 this carries the port the system picked. */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  public int port() {
    return address().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      boolean known =
          path.equals("/metrics")
              || path.equals("/healthz")
              || path.equals("/readyz")
              || path.equals("/devices");
      if (!known) {
        reply(exchange, 404, PLAIN, "not found\n");
        return;
      }
      if (!exchange.getRequestMethod().equals("GET")) {
        exchange.getResponseHeaders().set("Allow", "GET");
        reply(exchange, 405, PLAIN, "method not allowed\n");
        return;
      }
      switch (path) {
        case "/metrics" -> metrics(exchange);
        case "/healthz" -> probe(exchange, alive, "not alive", degraded);
        case "/devices" -> reply(exchange, 200, JSON, devices.get());
        default -> readiness(exchange);
      }
    } catch (RuntimeException e) {
      // The JDK server would drop the connection without a response; a 500 is easier to debug.
      log.warn("Failed to answer {} {}", exchange.getRequestMethod(), exchange.getRequestURI(), e);
      try {
        reply(exchange, 500, PLAIN, "internal error\n");
      } catch (IOException | RuntimeException ignored) {
        // headers were already sent; nothing more we can do
      }
    }
  }

  private void metrics(HttpExchange exchange) throws IOException {
    String contentType = negotiate(exchange.getRequestHeaders().getFirst("Accept"));
    // Rendered to memory first so a failing collector yields a 500, not a truncated 200.
    ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
    registry.scrape(body, contentType);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(200, body.size());
    try (OutputStream out = exchange.getResponseBody()) {
      body.writeTo(out);
    }
  }

  /** OpenMetrics only when asked for; everything else (including no header) gets text 0.0.4. */
  static String negotiate(String accept) {
    return accept != null && accept.contains("application/openmetrics-text")
        ? OPENMETRICS_CONTENT_TYPE
        : TEXT_CONTENT_TYPE;
  }

  private void readiness(HttpExchange exchange) throws IOException {
    List<String> reasons;
    try {
      reasons = unready.get();
    } catch (RuntimeException e) {
      reasons = List.of(e.toString());
    }
    if (reasons.isEmpty()) {
      probe(exchange, ready, "not ready", List::of);
      return;
    }
    StringBuilder body = new StringBuilder();
    for (String reason : reasons) {
      body.append("not ready: ").append(reason).append('\n');
    }
    reply(exchange, 503, PLAIN, body.toString());
  }

  private static void probe(
      HttpExchange exchange, BooleanSupplier check, String failure, Supplier<List<String>> degraded)
      throws IOException {
    boolean ok;
    String reason = failure;
    try {
      ok = check.getAsBoolean();
    } catch (RuntimeException e) {
      ok = false;
      reason = failure + ": " + e;
    }
    if (ok) {
      StringBuilder body = new StringBuilder("ok\n");
      for (String problem : degraded.get()) {
        body.append("degraded: ").append(problem).append('\n');
      }
      reply(exchange, 200, PLAIN, body.toString());
    } else {
      reply(exchange, 503, PLAIN, reason + "\n");
    }
  }

  private static void reply(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** Stops accepting, lets in-flight requests finish briefly, then stops the threads. */
  @Override
  public void close() {
    server.stop(0);
    executor.shutdown();
    try {
      if (!executor.awaitTermination(2, TimeUnit.SECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
