package io.acceld.metrics;

import io.acceld.util.ClientText;
import io.acceld.util.NamedThreads;
import io.acceld.util.RateLimitedLog;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small HTTP/1.x server for the agent's few GET endpoints, built so that no client can starve the
 * liveness probe, which the JDK's {@code com.sun.net.httpserver} cannot promise: its request and
 * idle timeouts are JVM-wide system properties, off by default, and it drains an announced body on
 * close, so one silent connection pins one of its threads for ever.
 *
 * <ul>
 *   <li>Each connection gets its own thread, up to {@link Limits#maxConnections()} at once; a slow
 *       or silent client holds only its own.
 *   <li>Each connection has one hard deadline from accept to the last byte written (TLS handshake,
 *       request head, reply): when it passes the socket is closed, whatever the client is doing.
 *   <li>The request head is bounded ({@link HttpRequestHead}); a body is never read.
 *   <li>One request per connection ({@code Connection: close}), so idle keep-alive connections
 *       never hold threads. Prometheus and the kubelet's probes open one per request anyway.
 * </ul>
 */
final class HttpListener implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpListener.class);

  /** How much of an unread request is drained after replying, so the close is not a reset. */
  private static final int DRAIN_BYTES = 64 * 1024;

  private static final int DRAIN_MILLIS = 1000;

  /**
   * @param deadline the longest one connection may live, from accept to its reply's last byte
   * @param maxConnections the most connections served at once; more are closed at once
   */
  record Limits(Duration deadline, int maxConnections) {
    static final Limits DEFAULT = new Limits(Duration.ofSeconds(10), 64);
  }

  /** Answers one request; must not block for long (the probes' suppliers are cheap). */
  interface Handler {
    HttpReply handle(HttpRequestHead request);
  }

  private final ServerSocket socket;
  private final Limits limits;
  private final Optional<PemTls> tls;
  private final Handler handler;
  private final ThreadPoolExecutor connections;
  private final ScheduledExecutorService deadlines;
  private final Thread acceptor;
  private final RateLimitedLog refusals = new RateLimitedLog(log, Duration.ofMinutes(1));
  private volatile boolean closed;

  private HttpListener(ServerSocket socket, Limits limits, Optional<PemTls> tls, Handler handler) {
    this.socket = socket;
    this.limits = limits;
    this.tls = tls;
    this.handler = handler;
    this.connections =
        new ThreadPoolExecutor(
            0,
            limits.maxConnections(),
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            new NamedThreads("acceld-metrics-http"));
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(1, new NamedThreads("acceld-metrics-deadline"));
    timer.setRemoveOnCancelPolicy(true);
    this.deadlines = timer;
    this.acceptor = new NamedThreads("acceld-metrics-accept").newThread(this::acceptLoop);
  }

  /** Binds {@code address} and starts accepting. */
  static HttpListener start(
      InetSocketAddress address, Limits limits, Optional<PemTls> tls, Handler handler)
      throws IOException {
    ServerSocket socket = new ServerSocket();
    try {
      socket.setReuseAddress(true);
      socket.bind(address, 128);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    HttpListener listener = new HttpListener(socket, limits, tls, handler);
    listener.acceptor.start();
    return listener;
  }

  InetSocketAddress address() {
    return (InetSocketAddress) socket.getLocalSocketAddress();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = socket.accept();
      } catch (IOException e) {
        if (!closed) {
          refusals.warn("Accepting an HTTP connection failed: {}", e.toString());
        }
        continue;
      }
      try {
        connections.execute(() -> serve(client));
      } catch (RejectedExecutionException e) {
        refusals.warn(
            "Closing an HTTP connection from {}: {} are open already, the most served at once",
            client.getInetAddress().getHostAddress(),
            limits.maxConnections());
        closeQuietly(client);
      }
    }
  }

  private void serve(Socket raw) {
    ScheduledFuture<?> deadline =
        deadlines.schedule(
            () -> closeQuietly(raw), limits.deadline().toMillis(), TimeUnit.MILLISECONDS);
    try (raw) {
      raw.setSoTimeout((int) limits.deadline().toMillis());
      raw.setTcpNoDelay(true);
      Socket connection = raw;
      if (tls.isPresent()) {
        SSLSocket ssl =
            (SSLSocket)
                tls.get().context().getSocketFactory().createSocket(raw, null, raw.getPort(), true);
        ssl.setUseClientMode(false);
        ssl.startHandshake();
        connection = ssl;
      }
      InputStream in = new BufferedInputStream(connection.getInputStream(), 4096);
      boolean head = false;
      HttpReply reply;
      try {
        Optional<HttpRequestHead> request = HttpRequestHead.read(in);
        if (request.isEmpty()) {
          return;
        }
        head = request.get().method().equals("HEAD");
        reply = answer(request.get());
      } catch (HttpRequestHead.Rejected e) {
        refusals.info(
            "Refused an HTTP request from {}: {}",
            raw.getInetAddress().getHostAddress(),
            e.getMessage());
        reply = HttpReply.text(e.status(), e.getMessage() + "\n");
      }
      reply.writeTo(connection.getOutputStream(), head);
      if (connection == raw) {
        lingerForClose(raw, in);
      }
    } catch (IOException e) {
      // a client that went away, reset, or outlived its deadline: nobody is left to answer
      log.debug("HTTP connection from {} ended: {}", raw.getInetAddress(), e.toString());
    } catch (RuntimeException e) {
      refusals.warn("HTTP connection failed: {}", e.toString());
    } finally {
      deadline.cancel(false);
    }
  }

  private HttpReply answer(HttpRequestHead request) {
    try {
      return handler.handle(request);
    } catch (RuntimeException e) {
      refusals.warn(
          "Failed to answer {} {}: {}",
          ClientText.quote(request.method()),
          ClientText.quote(request.path()),
          e.toString());
      return HttpReply.text(500, "internal error\n");
    }
  }

  /**
   * Half-closes and reads what the client still sends, briefly, before closing: closing a socket
   * with unread bytes resets the connection, and a reset can discard the reply in the client's
   * buffer before it reads it.
   */
  private static void lingerForClose(Socket socket, InputStream in) throws IOException {
    socket.shutdownOutput();
    socket.setSoTimeout(DRAIN_MILLIS);
    byte[] sink = new byte[4096];
    int drained = 0;
    try {
      for (int n; drained < DRAIN_BYTES && (n = in.read(sink)) >= 0; ) {
        drained += n;
      }
    } catch (IOException e) {
      // timed out or reset: the reply was sent, which is all that mattered
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      socket.close();
    } catch (SocketException e) {
      // already closed
    } catch (IOException e) {
      log.debug("Closing the HTTP socket: {}", e.toString());
    }
    try {
      acceptor.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    connections.shutdownNow();
    deadlines.shutdownNow();
  }
}
