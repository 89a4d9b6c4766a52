package io.acceld.metrics;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The node name for the {@code Hostname} label: the {@code node-name} setting if set, else the
 * {@code NODE_NAME} environment variable (a DaemonSet sets it from {@code spec.nodeName}), else the
 * host name, as dcgm-exporter does.
 */
public final class NodeName {
  private NodeName() {}

  /**
   * Resolves against {@code env} (the agent's environment, passed in so tests decide it) and the
   * host, reading procfs under {@code procRoot}.
   */
  public static String resolve(String configured, Map<String, String> env, Path procRoot) {
    return resolve(configured, env, () -> hostName(procRoot));
  }

  static String resolve(String configured, Map<String, String> env, Supplier<String> hostName) {
    if (configured != null && !configured.isBlank()) {
      return configured.trim();
    }
    String fromEnv = env.get("NODE_NAME");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv.trim();
    }
    return hostName.get();
  }

  /**
   * The kernel's host name (what {@code hostname} prints). Read from procfs first because {@code
   * InetAddress.getLocalHost()} may wait on DNS.
   */
  static String hostName(Path procRoot) {
    try {
      String name =
          Files.readString(procRoot.resolve("sys/kernel/hostname"), StandardCharsets.UTF_8).trim();
      if (!name.isEmpty()) {
        return name;
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or procfs not mounted: ask the JDK
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }
}
