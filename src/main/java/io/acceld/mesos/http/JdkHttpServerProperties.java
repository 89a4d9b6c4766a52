package io.acceld.mesos.http;

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
 *   <li>{@code sun.net.httpserver.maxReqTime=30} (seconds): a connection that has not finished
 *       sending its request headers and body 30 s after it was accepted (or, kept alive, after it
 *       began its next request) is closed, so clients that send a request line and then nothing
 *       hold a thread for at most that long. Responses (event streams) are not limited: {@code
 *       maxRspTime} stays unset.
 *   <li>{@code sun.net.httpserver.maxReqHeaderSize=65536} (bytes) and {@code maxReqHeaders=100}:
 *       Mesos clients send a handful of short headers.
 *   <li>{@code sun.net.httpserver.idleInterval=30} (seconds), the default, written down: idle
 *       keep-alive connections are closed after it.
 * </ul>
 */
public final class JdkHttpServerProperties {
  static final Map<String, String> DEFAULTS =
      Map.of(
          "sun.net.httpserver.maxReqTime", "30",
          "sun.net.httpserver.maxReqHeaderSize", "65536",
          "sun.net.httpserver.maxReqHeaders", "100",
          "sun.net.httpserver.idleInterval", "30");

  private JdkHttpServerProperties() {}

  /** Sets each property the operator has not set; idempotent. */
  public static void install() {
    DEFAULTS.forEach(
        (key, value) -> {
          if (System.getProperty(key) == null) {
            System.setProperty(key, value);
          }
        });
  }
}
