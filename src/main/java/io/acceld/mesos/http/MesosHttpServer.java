package io.acceld.mesos.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.acceld.config.HostPort;
import io.acceld.util.BuildInfo;
import io.acceld.util.NamedThreads;
import io.acceld.util.OperatorError;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Mesos bridge's HTTP server, on the JDK's {@code com.sun.net.httpserver} (no HTTP parsing of
 * our own). Routes:
 *
 * <ul>
 *   <li>{@code POST /api/v1/scheduler} and {@code /master/api/v1/scheduler} (the path libmesos's
 *       scheduler library posts to): {@link SchedulerRoute};
 *   <li>{@code POST /api/v1/executor} and {@code /slave(1)/api/v1/executor} (the path libmesos's
 *       executor library derives from {@code MESOS_SLAVE_PID}): {@link ExecutorRoute};
 *   <li>{@code GET /version} and {@code /master/version}: Mesos 1.11.0's version document, which
 *       some client libraries read to decide whether to ask for GPU_RESOURCES; never authenticated,
 *       as in Mesos;
 *   <li>{@code GET /redirect} and {@code /master/redirect}: 307 to this server itself ({@code
 *       Location: //host:port}), which is what a leading Mesos master answers. Clients probe it to
 *       find the leader before subscribing; a 404 would work for some but read as "no master" to
 *       others, while a redirect to self is always right for a single master;
 *   <li>{@code GET /state}: the bridge's state as JSON, from the supplier.
 * </ul>
 *
 * <p>Threads: requests run on a pool of at most {@code requestThreads + maxStreams} named threads
 * that exist only while busy (idle ones end after a minute). Each event stream holds one thread for
 * its life, and there are at most {@code maxStreams} streams, so streams never take the threads
 * short calls need. A slow or stuck reader only fills its own stream's queue.
 */
public final class MesosHttpServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MesosHttpServer.class);

  /** The Mesos release whose API this bridge speaks. */
  public static final String MESOS_VERSION = "1.11.0";

  private final HttpServer server;
  private final ThreadPoolExecutor pool;
  private final ScheduledExecutorService reaper;
  private final Optional<Authenticator> auth;
  private final SchedulerRoute scheduler;
  private final ExecutorRoute executor;
  private final Supplier<String> stateJson;
  private final ExecutorTokens tokens;
  private final ExecutorEndpoint executorEndpoint;
  private final LogThrottle throttle;
  private final byte[] version;

  private MesosHttpServer(
      HttpServer server,
      Optional<Authenticator> auth,
      SchedulerEndpoint schedulerEndpoint,
      ExecutorEndpoint executorEndpoint,
      Supplier<String> stateJson,
      ExecutorTokens tokens,
      MesosHttpLimits limits) {
    this.server = server;
    this.auth = auth;
    this.stateJson = stateJson;
    this.tokens = tokens;
    this.executorEndpoint = executorEndpoint;
    this.throttle = new LogThrottle(Duration.ofSeconds(10), System::nanoTime);
    int threads = limits.requestThreads() + limits.maxStreams();
    this.pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            1,
            TimeUnit.MINUTES,
            new LinkedBlockingQueue<>(),
            new NamedThreads("acceld-mesos-http"));
    pool.allowCoreThreadTimeOut(true);
    this.reaper =
        Executors.newSingleThreadScheduledExecutor(new NamedThreads("acceld-mesos-stream-reaper"));
    CallRequests requests = new CallRequests(limits.maxBodyBytes(), throttle);
    StreamReplies replies =
        new StreamReplies(limits.maxStreams(), limits.streamQueueEvents(), reaper, throttle);
    this.scheduler = new SchedulerRoute(schedulerEndpoint, requests, replies);
    this.executor = new ExecutorRoute(executorEndpoint, requests, replies);
    this.version = versionJson(BuildInfo.current());
    server.setExecutor(pool);
    server.createContext("/", this::handle);
  }

  /**
   * {@link #start(HostPort, HttpAccess, SchedulerEndpoint, ExecutorEndpoint, Supplier,
   * MesosHttpLimits)} with the default limits.
   */
  public static MesosHttpServer start(
      HostPort address,
      HttpAccess access,
      SchedulerEndpoint scheduler,
      ExecutorEndpoint executor,
      Supplier<String> stateJson)
      throws IOException {
    return start(address, access, scheduler, executor, stateJson, MesosHttpLimits.defaults());
  }

  /**
   * Binds {@code address} (port 0 picks a free one, see {@link #port()}) and starts serving.
   *
   * @throws OperatorError (CANNOT_LISTEN) when the address is not loopback and {@code access}
   *     neither authenticates nor allows insecure serving, or it cannot be bound
   */
  public static MesosHttpServer start(
      HostPort address,
      HttpAccess access,
      SchedulerEndpoint scheduler,
      ExecutorEndpoint executor,
      Supplier<String> stateJson,
      MesosHttpLimits limits)
      throws IOException {
    Optional<Authenticator> auth = access.auth();
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(executor, "executor");
    Objects.requireNonNull(stateJson, "stateJson");
    if (auth.isEmpty() && !access.allowInsecure() && !isLoopback(address)) {
      throw new OperatorError(
          OperatorError.Kind.CANNOT_LISTEN,
          "--mesos-address "
              + address
              + " is not a loopback address: anyone who reaches it could launch tasks; set"
              + " --mesos-auth basic:FILE|bearer:FILE, or --mesos-allow-insecure=true to serve it"
              + " without authentication");
    }
    JdkHttpServerProperties.install();
    HttpServer http;
    try {
      http = HttpServer.create(new InetSocketAddress(address.host(), address.port()), 0);
    } catch (IOException e) {
      throw new OperatorError(
          OperatorError.Kind.CANNOT_LISTEN,
          "--mesos-address " + address + " cannot be listened on: " + e.getMessage(),
          e);
    }
    MesosHttpServer server =
        new MesosHttpServer(
            http, auth, scheduler, executor, stateJson, access.executorTokens(), limits);
    http.start();
    log.info(
        "Serving the Mesos v1 scheduler and executor APIs on {}{}",
        new HostPort(address.host(), server.port()),
        auth.map(a -> " (" + a.scheme().name().toLowerCase(java.util.Locale.ROOT) + " auth)")
            .orElse(" (no authentication)"));
    return server;
  }

  private static boolean isLoopback(HostPort address) {
    try {
      InetAddress[] all = InetAddress.getAllByName(address.host());
      for (InetAddress a : all) {
        if (!a.isLoopbackAddress()) {
          return false;
        }
      }
      return all.length > 0;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** Whether it still serves: its request threads and stream reaper have not been stopped. */
  public boolean alive() {
    return !pool.isShutdown() && !reaper.isShutdown();
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  public int port() {
    return address().getPort();
  }

  private void handle(HttpExchange exchange) {
    try {
      String path = exchange.getRequestURI().getPath();
      switch (path) {
        case "/version", "/master/version" -> version(exchange);
        case "/api/v1/scheduler", "/master/api/v1/scheduler" -> {
          Optional<Authenticator.Authenticated> who = authenticate(exchange);
          if (who != null) {
            scheduler.handle(exchange, who.flatMap(Authenticator.Authenticated::principal));
          }
        }
        case "/api/v1/executor", "/slave(1)/api/v1/executor" -> {
          Optional<ExecutorTokens.Identity> caller = authenticateExecutor(exchange);
          if (caller != null) {
            executor.handle(exchange, caller);
          }
        }
        case "/redirect", "/master/redirect" -> {
          if (authenticate(exchange) != null) {
            redirect(exchange);
          }
        }
        case "/state", "/master/state" -> {
          if (authenticate(exchange) != null) {
            state(exchange);
          }
        }
        default -> Exchanges.text(exchange, 404, "Not found");
      }
    } catch (IOException e) {
      log.debug(
          "Mesos HTTP exchange with {} failed: {}", exchange.getRemoteAddress(), e.toString());
    } catch (RuntimeException e) {
      long suppressed = throttle.permit("internal-error");
      if (suppressed >= 0) {
        log.warn("Failed to answer a Mesos request{}", LogThrottle.suffix(suppressed), e);
      }
      try {
        Exchanges.text(exchange, 500, "Internal error");
      } catch (IOException | RuntimeException ignored) {
        // the status line was already sent; the connection is all that is left to close
      }
    } finally {
      exchange.close();
    }
  }

  /**
   * Whom the request authenticated as (empty without authentication configured), or null when it
   * has been answered 401.
   */
  private Optional<Authenticator.Authenticated> authenticate(HttpExchange exchange)
      throws IOException {
    if (auth.isEmpty()) {
      return Optional.empty();
    }
    Optional<Authenticator.Authenticated> who =
        auth.get().authenticate(Exchanges.header(exchange, "Authorization"));
    if (who.isEmpty()) {
      unauthorized(exchange);
      return null;
    }
    return who;
  }

  /**
   * For the executor API: empty when the caller may make any executor call (no authentication
   * configured, or the operator's credentials), the executor whose token it presented, or null when
   * it has been answered. While the agent recovers, the tokens of the executors it is about to
   * re-attach are not known yet, so a request with none that matches is told 503 (retry) rather
   * than 401, which would make a surviving executor give up.
   */
  private Optional<ExecutorTokens.Identity> authenticateExecutor(HttpExchange exchange)
      throws IOException {
    if (auth.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> header = Exchanges.header(exchange, "Authorization");
    if (auth.get().authenticate(header).isPresent()) {
      return Optional.empty();
    }
    Optional<ExecutorTokens.Identity> executor =
        header.flatMap(MesosHttpServer::bearerToken).flatMap(tokens::executorOf);
    if (executor.isPresent()) {
      return executor;
    }
    if (executorEndpoint.recovering()) {
      Exchanges.text(exchange, 503, "Agent has not finished recovery");
      return null;
    }
    unauthorized(exchange);
    return null;
  }

  private void unauthorized(HttpExchange exchange) throws IOException {
    long suppressed = throttle.permit("unauthenticated");
    if (suppressed >= 0) {
      log.warn(
          "Refused an unauthenticated Mesos request from {}{}",
          exchange.getRemoteAddress(),
          LogThrottle.suffix(suppressed));
    }
    exchange.getResponseHeaders().set("WWW-Authenticate", auth.get().scheme().challenge());
    Exchanges.text(exchange, 401, "Unauthorized");
  }

  /** The token of an {@code Authorization: Bearer <token>} header. */
  private static Optional<String> bearerToken(String header) {
    String prefix = "Bearer ";
    if (header.length() <= prefix.length()
        || !header.regionMatches(true, 0, prefix, 0, prefix.length())) {
      return Optional.empty();
    }
    String token = header.substring(prefix.length()).strip();
    return token.isEmpty() ? Optional.empty() : Optional.of(token);
  }

  private void version(HttpExchange exchange) throws IOException {
    if (!isGet(exchange)) {
      Exchanges.methodNotAllowed(exchange, "GET");
      return;
    }
    Exchanges.send(exchange, 200, "application/json", version);
  }

  private static byte[] versionJson(BuildInfo build) {
    // Mesos prints build and git facts; acceld has no Mesos git tree, so it says what it is.
    String json =
        "{\"version\":\""
            + MESOS_VERSION
            + "\",\"git_sha\":\"unknown\",\"git_tag\":\"acceld-"
            + build.version().replaceAll("[^A-Za-z0-9._-]", "")
            + "\",\"build_date\":\"unknown\",\"build_user\":\"acceld\"}";
    return json.getBytes(StandardCharsets.US_ASCII);
  }

  private void redirect(HttpExchange exchange) throws IOException {
    if (!isGet(exchange)) {
      Exchanges.methodNotAllowed(exchange, "GET");
      return;
    }
    // The address the client reached us on: right even when bound to every interface.
    InetSocketAddress local = exchange.getLocalAddress();
    HostPort self = new HostPort(local.getAddress().getHostAddress(), local.getPort());
    exchange.getResponseHeaders().set("Location", "//" + self);
    Exchanges.empty(exchange, 307);
  }

  private void state(HttpExchange exchange) throws IOException {
    if (!isGet(exchange)) {
      Exchanges.methodNotAllowed(exchange, "GET");
      return;
    }
    Exchanges.send(
        exchange, 200, "application/json", stateJson.get().getBytes(StandardCharsets.UTF_8));
  }

  /** GET, or HEAD (the same answer without its body, which the JDK server leaves out). */
  private static boolean isGet(HttpExchange exchange) {
    String method = exchange.getRequestMethod();
    return method.equals("GET") || method.equals("HEAD");
  }

  /** Stops accepting, ends every open stream's connection, then stops the threads. */
  @Override
  public void close() {
    server.stop(0);
    reaper.shutdownNow();
    pool.shutdownNow();
    try {
      if (!pool.awaitTermination(2, TimeUnit.SECONDS)) {
        log.warn("Mesos HTTP threads still busy 2 s after stopping");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
