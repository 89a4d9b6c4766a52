package io.acceld.metrics;

import io.acceld.config.HostPort;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code /metrics}, {@code /healthz}, {@code /readyz} and {@code /devices} over HTTP (or
 * HTTPS, see {@link MetricsAccess}) with {@link HttpListener}, so the agent needs no web framework
 * for four tiny endpoints and no client, however slow or hostile, can starve the probes.
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
 *   <li>{@code HEAD} is answered as {@code GET} without the body; other paths 404, other methods
 *       405, a request announcing a body 400; {@code /metrics} and {@code /devices} 401 without the
 *       bearer token when one is configured.
 * </ul>
 */
public final class MetricsServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetricsServer.class);

  // The exposition writers are a runtime-only dependency of Micrometer, so their constants are
  // spelled out here; scrape(contentType) picks the writer from these same strings.
  static final String TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  static final String OPENMETRICS_CONTENT_TYPE =
      "application/openmetrics-text; version=1.0.0; charset=utf-8";
  private static final String JSON = "application/json";

  private HttpListener listener;
  private final MetricsAccess access;
  private final PrometheusMeterRegistry registry;
  private final BooleanSupplier alive;
  private final BooleanSupplier ready;
  private final Supplier<String> devices;
  private Supplier<List<String>> degraded = List::of;
  private Supplier<List<String>> unready = List::of;
  private Supplier<List<String>> stuck = List::of;

  private MetricsServer(
      MetricsAccess access,
      PrometheusMeterRegistry registry,
      BooleanSupplier alive,
      BooleanSupplier ready,
      Supplier<String> devices) {
    this.access = access;
    this.registry = registry;
    this.alive = alive;
    this.ready = ready;
    this.devices = devices;
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
    return start(
        address,
        MetricsAccess.open(),
        HttpListener.Limits.DEFAULT,
        registry,
        alive,
        ready,
        devices);
  }

  /** As above, with a bearer token and TLS as {@code access} says. */
  public static MetricsServer start(
      HostPort address,
      MetricsAccess access,
      PrometheusMeterRegistry registry,
      BooleanSupplier alive,
      BooleanSupplier ready,
      Supplier<String> devices)
      throws IOException {
    return start(address, access, HttpListener.Limits.DEFAULT, registry, alive, ready, devices);
  }

  static MetricsServer start(
      HostPort address,
      MetricsAccess access,
      HttpListener.Limits limits,
      PrometheusMeterRegistry registry,
      BooleanSupplier alive,
      BooleanSupplier ready,
      Supplier<String> devices)
      throws IOException {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(alive, "alive");
    Objects.requireNonNull(ready, "ready");
    MetricsServer server = new MetricsServer(access, registry, alive, ready, devices);
    server.listener =
        HttpListener.start(
            new InetSocketAddress(address.host(), address.port()),
            limits,
            access.tls(),
            server::handle);
    // As the operator wrote it (0.0.0.0:9445), not as Java prints the bound socket
    // (/[0:0:0:0:0:0:0:0]:9445); only a port 0 is replaced, by the port the system picked.
    log.info(
        "Serving /metrics, /healthz, /readyz and /devices ({}) on {}",
        access.describe(),
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

  /**
   * What makes {@code /healthz} fail even while {@code alive} holds: one sentence per stuck loop (a
   * thread blocked for ever looks alive). Set once, before the server is asked; cheap, never
   * blocking.
   */
  public MetricsServer notAliveBecause(Supplier<List<String>> reasons) {
    this.stuck = Objects.requireNonNull(reasons, "reasons");
    return this;
  }

  /** The bound address; with port 0 this carries the port the system picked. */
  public InetSocketAddress address() {
    return listener.address();
  }

  public int port() {
    return address().getPort();
  }

  private HttpReply handle(HttpRequestHead request) {
    String path = request.path();
    boolean known =
        path.equals("/metrics")
            || path.equals("/healthz")
            || path.equals("/readyz")
            || path.equals("/devices");
    if (!known) {
      return HttpReply.text(404, "not found\n");
    }
    if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
      return HttpReply.text(405, "method not allowed\n").withHeader("Allow", "GET, HEAD");
    }
    try {
      if (request.announcesBody()) {
        return HttpReply.text(400, "GET and HEAD take no body\n");
      }
    } catch (HttpRequestHead.Rejected e) {
      return HttpReply.text(e.status(), e.getMessage() + "\n");
    }
    boolean guarded = path.equals("/metrics") || path.equals("/devices");
    if (guarded
        && access.token().isPresent()
        && !access.token().get().admits(request.header("Authorization"))) {
      return HttpReply.text(401, "a bearer token is required\n")
          .withHeader("WWW-Authenticate", "Bearer realm=\"acceld\"");
    }
    return switch (path) {
      case "/metrics" -> metrics(request);
      case "/healthz" -> liveness();
      case "/devices" -> HttpReply.of(200, JSON, devices.get());
      default -> readiness();
    };
  }

  private HttpReply metrics(HttpRequestHead request) {
    String contentType = negotiate(request.header("Accept").orElse(null));
    ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
    try {
      registry.scrape(body, contentType);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return new HttpReply(200, contentType, Map.of(), body.toByteArray());
  }

  /** OpenMetrics only when asked for; everything else (including no header) gets text 0.0.4. */
  static String negotiate(String accept) {
    return accept != null && accept.contains("application/openmetrics-text")
        ? OPENMETRICS_CONTENT_TYPE
        : TEXT_CONTENT_TYPE;
  }

  private HttpReply liveness() {
    List<String> reasons;
    try {
      reasons = stuck.get();
    } catch (RuntimeException e) {
      reasons = List.of(e.toString());
    }
    if (reasons.isEmpty()) {
      return probe(alive, "not alive", degraded);
    }
    StringBuilder body = new StringBuilder();
    for (String reason : reasons) {
      body.append("not alive: ").append(reason).append('\n');
    }
    return HttpReply.text(503, body.toString());
  }

  private HttpReply readiness() {
    List<String> reasons;
    try {
      reasons = unready.get();
    } catch (RuntimeException e) {
      reasons = List.of(e.toString());
    }
    if (reasons.isEmpty()) {
      return probe(ready, "not ready", List::of);
    }
    StringBuilder body = new StringBuilder();
    for (String reason : reasons) {
      body.append("not ready: ").append(reason).append('\n');
    }
    return HttpReply.text(503, body.toString());
  }

  private static HttpReply probe(
      BooleanSupplier check, String failure, Supplier<List<String>> degraded) {
    boolean ok;
    String reason = failure;
    try {
      ok = check.getAsBoolean();
    } catch (RuntimeException e) {
      ok = false;
      reason = failure + ": " + e;
    }
    if (!ok) {
      return HttpReply.text(503, reason + "\n");
    }
    StringBuilder body = new StringBuilder("ok\n");
    for (String problem : degraded.get()) {
      body.append("degraded: ").append(problem).append('\n');
    }
    return HttpReply.text(200, body.toString());
  }

  /** Stops accepting; a connection still open ends at its deadline. */
  @Override
  public void close() {
    listener.close();
  }
}
