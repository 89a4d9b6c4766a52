package io.acceld.mesos.http;

import io.acceld.util.PropertyDefaults;
import java.util.Map;

/**
 * The JDK HTTP server's limits are system properties, read once per JVM when the first server is
 * created, so they are JVM-wide: they apply to the metrics server as much as to the Mesos bridge.
 * {@link #install()} sets the ones the agent relies on, unless the operator set them with {@code
 * -D}; it must run before any {@code com.sun.net.httpserver.HttpServer} is created (the agent's
 * {@code main} is the place; {@link MesosHttpServer#start} calls it too, which is enough only when
 * it creates the first server).
 *
 * <ul>
 *   <li>{@code sun.net.httpserver.maxReqTime=10} (seconds): a connection that has not finished
 *       sending its request headers and body 10 s after it was accepted (or, kept alive, after it
 *       began its next request) is closed. The JDK 17 server reads headers on a pool thread, so a
 *       client that sends a request line and then nothing holds a thread until then: with more such
 *       clients than threads, other requests wait up to this long (measured: 6 silent connections
 *       against a 4-thread pool and {@code maxReqTime=3} delayed a probe 4.0 s, the timer ticking
 *       once a second). Mesos clients send a call in one write. Responses (event streams) are not
 *       limited: {@code maxRspTime} stays unset.
 *   <li>{@code sun.net.httpserver.maxReqHeaderSize=65536} (bytes) and {@code maxReqHeaders=100}:
 *       Mesos clients send a handful of short headers.
 *   <li>{@code sun.net.httpserver.idleInterval=30} (seconds), the default, written down: idle
 *       keep-alive connections are closed after it.
 *   <li>{@code sun.net.httpserver.drainAmount=1048576} (bytes, 64 KiB by default): when a handler
 *       answers without reading the whole request body (a 413), the server reads and discards up to
 *       this much before it decides whether to keep the connection; past it, it closes the socket
 *       with the client still sending, and the client can lose the answer to a reset. A Mesos call
 *       refused for its size then still gets its 413 up to 1 MiB; the time any read may take is
 *       bounded by {@code maxReqTime} as above.
 *   <li>{@code sun.net.httpserver.nodelay=true}: the server writes a response's headers and its
 *       body separately, and with Nagle's algorithm on, the body waits for the client's delayed ACK
 *       of the headers: about 40 ms per call on a kept-alive connection, which is how Mesos clients
 *       call (found by {@code MesosHttpFuzzIT}: 2,000 calls on one connection took 97 s, under 20 s
 *       without Nagle).
 * </ul>
 */
public final class JdkHttpServerProperties {
  static final PropertyDefaults DEFAULTS =
      new PropertyDefaults(
          Map.of(
              "sun.net.httpserver.maxReqTime", "10",
              "sun.net.httpserver.maxReqHeaderSize", "65536",
              "sun.net.httpserver.maxReqHeaders", "100",
              "sun.net.httpserver.idleInterval", "30",
              "sun.net.httpserver.drainAmount", "1048576",
              "sun.net.httpserver.nodelay", "true"));

  private JdkHttpServerProperties() {}

  /** Sets each property the operator has not set; idempotent. */
  public static void install() {
    DEFAULTS.install();
  }
}
