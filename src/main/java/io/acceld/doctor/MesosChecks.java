package io.acceld.doctor;

import io.acceld.config.AgentConfig;
import io.acceld.config.HostPort;
import io.acceld.config.Settings;
import io.acceld.util.ClientText;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The Mesos bridge's listen address ({@code --mesos-address}): an address of this host, and free or
 * held by an acceld bridge. Found by connecting, never by binding: a bind, however brief, could be
 * the moment an agent that starts needs the port. What answers is asked {@code GET /version}, where
 * an acceld bridge says {@code "build_user":"acceld"}.
 */
final class MesosChecks {
  static final String CHECK = "mesos";
  static final String SUBJECT = "mesos address";

  /** A local connection is refused or accepted at once; this only bounds a filtered port. */
  private static final int CONNECT_TIMEOUT_MS = 1000;

  private static final int MAX_VERSION_BYTES = 4096;

  private MesosChecks() {}

  static List<Finding> of(AgentConfig config, Duration limit) {
    Optional<HostPort> configured = config.get(Settings.MESOS_ADDRESS);
    if (configured.isEmpty()) {
      return List.of(Finding.skip(CHECK, SUBJECT, "the bridge is off (--mesos-address empty)"));
    }
    HostPort address = configured.get();
    String fixOther =
        "stop the program that holds it (ss -ltnp 'sport = :"
            + address.port()
            + "' names it) or give acceld another --mesos-address";
    InetAddress host;
    try {
      host = InetAddress.getByName(address.host());
    } catch (IOException e) {
      return List.of(
          Finding.fail(
              CHECK,
              SUBJECT,
              address + ": the host does not resolve (" + e.getMessage() + ")",
              "use an IP address of this node, 127.0.0.1 or 0.0.0.0"));
    }
    if (!host.isAnyLocalAddress() && !isLocal(host)) {
      return List.of(
          Finding.fail(
              CHECK,
              SUBJECT,
              address + ": " + host.getHostAddress() + " is not an address of this host",
              "use an IP address of this node, 127.0.0.1 or 0.0.0.0"));
    }
    for (InetAddress target : targets(host)) {
      InetSocketAddress endpoint = new InetSocketAddress(target, address.port());
      if (!listening(endpoint)) {
        continue;
      }
      Optional<String> version = version(endpoint, limit.dividedBy(2));
      if (version.isPresent() && version.get().contains("\"build_user\":\"acceld\"")) {
        return List.of(
            Finding.pass(
                CHECK,
                SUBJECT,
                address
                    + " is in use by an acceld Mesos bridge (it answers /version as acceld):"
                    + " the running agent's"));
      }
      return List.of(
          Finding.fail(
              CHECK,
              SUBJECT,
              address
                  + " is taken: "
                  + endpoint.getAddress().getHostAddress()
                  + ":"
                  + address.port()
                  + " accepts connections and is not an acceld bridge"
                  + version.map(v -> " (GET /version: " + ClientText.quote(v) + ")").orElse(""),
              fixOther));
    }
    return List.of(Finding.pass(CHECK, SUBJECT, address + " is free: nothing listens on it"));
  }

  /**
   * Where a listener would clash with a bind to {@code host}: for a wildcard, every local address.
   */
  private static List<InetAddress> targets(InetAddress host) {
    if (!host.isAnyLocalAddress()) {
      return List.of(host);
    }
    List<InetAddress> all = new ArrayList<>();
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        for (InetAddress a : Collections.list(nic.getInetAddresses())) {
          boolean sameFamily = (a instanceof Inet6Address) == (host instanceof Inet6Address);
          if (sameFamily || host instanceof Inet6Address) {
            all.add(a);
          }
        }
      }
    } catch (SocketException e) {
      // no interface list: the loopback address below still finds a local listener
    }
    all.add(InetAddress.getLoopbackAddress());
    return all;
  }

  private static boolean isLocal(InetAddress host) {
    try {
      return host.isLoopbackAddress() || NetworkInterface.getByInetAddress(host) != null;
    } catch (SocketException e) {
      return false;
    }
  }

  private static boolean listening(InetSocketAddress endpoint) {
    try (Socket socket = new Socket()) {
      socket.connect(endpoint, CONNECT_TIMEOUT_MS);
      return true;
    } catch (ConnectException e) {
      return false; // refused: nothing listens there
    } catch (IOException e) {
      return false; // unreachable or filtered: nothing of this host's there to clash with
    }
  }

  /** The body of {@code GET /version}, or empty when what listens does not speak HTTP. */
  private static Optional<String> version(InetSocketAddress endpoint, Duration limit) {
    String host = endpoint.getAddress().getHostAddress();
    URI uri =
        URI.create(
            "http://"
                + (endpoint.getAddress() instanceof Inet6Address ? "[" + host + "]" : host)
                + ":"
                + endpoint.getPort()
                + "/version");
    try {
      HttpClient client =
          HttpClient.newBuilder().connectTimeout(Duration.ofMillis(CONNECT_TIMEOUT_MS)).build();
      HttpResponse<InputStream> response =
          client.send(
              HttpRequest.newBuilder(uri).timeout(limit).GET().build(),
              HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream body = response.body()) {
        return Optional.of(
            new String(body.readNBytes(MAX_VERSION_BYTES), StandardCharsets.UTF_8).strip());
      }
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
