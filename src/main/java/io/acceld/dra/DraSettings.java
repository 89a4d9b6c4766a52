package io.acceld.dra;

import io.acceld.config.AgentConfig;
import io.acceld.config.Settings;
import io.acceld.transport.UnixGrpc;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the kubelet side of DRA needs to know, checked once.
 *
 * @param driver the driver name ({@code --dra-driver}), a DNS subdomain of at most 63 characters:
 *     the kubelet, the slices and the claims' results all name it
 * @param nodeName this node's name, which is also the name of its one pool
 * @param pluginsRegistryDir plugin-watcher's directory; the registration socket goes there
 * @param kubeletPluginsDir the kubelet's plugins directory; the DRA socket is {@code
 *     <dir>/<driver>/dra.sock}
 * @param cdiDir where the per-claim CDI specs are written
 * @param hostDevPrefix where device nodes are on the host, for the CDI specs
 * @param healthPeriod how often the full health list is re-sent on each stream, well under the
 *     kubelet's 30 s timeout
 */
public record DraSettings(
    String driver,
    String nodeName,
    Path pluginsRegistryDir,
    Path kubeletPluginsDir,
    Path cdiDir,
    Path hostDevPrefix,
    Duration healthPeriod) {
  /**
   * The kubelet turns a device Unknown after 30 s without a report; re-send three times as often.
   */
  public static final Duration DEFAULT_HEALTH_PERIOD = Duration.ofSeconds(10);

  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public DraSettings {
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(pluginsRegistryDir, "pluginsRegistryDir");
    Objects.requireNonNull(kubeletPluginsDir, "kubeletPluginsDir");
    Objects.requireNonNull(cdiDir, "cdiDir");
    Objects.requireNonNull(hostDevPrefix, "hostDevPrefix");
    Objects.requireNonNull(healthPeriod, "healthPeriod");
    if (driver.length() > 63 || !DNS_SUBDOMAIN.matcher(driver).matches()) {
      throw new IllegalArgumentException(
          "--dra-driver "
              + driver
              + " is not a DNS subdomain of at most 63 characters (such as gpu.acceld.io)");
    }
    if (nodeName.isEmpty() || nodeName.length() > 253) {
      throw new IllegalArgumentException(
          "the node name must be 1 to 253 characters, not " + nodeName.length());
    }
    if (healthPeriod.isNegative() || healthPeriod.isZero()) {
      throw new IllegalArgumentException("healthPeriod must be positive, not " + healthPeriod);
    }
    pluginsRegistryDir = pluginsRegistryDir.toAbsolutePath().normalize();
    kubeletPluginsDir = kubeletPluginsDir.toAbsolutePath().normalize();
  }

  /**
   * The settings of {@code config}; {@code nodeName} as the agent resolved it ({@code --node-name},
   * else {@code $NODE_NAME}, else the host name).
   */
  public static DraSettings of(AgentConfig config, String nodeName) {
    return new DraSettings(
        config.get(Settings.DRA_DRIVER),
        nodeName,
        config.get(Settings.PLUGINS_REGISTRY_DIR),
        config.get(Settings.KUBELET_PLUGINS_DIR),
        config.get(Settings.CDI_DIR),
        config.get(Settings.HOST_DEV_PREFIX),
        DEFAULT_HEALTH_PERIOD);
  }

  /** This node's pool: one per node, named after it, as the slices publish it. */
  public String pool() {
    return nodeName;
  }

  /** plugin-watcher's socket: {@code <registry>/<driver>-reg.sock}. */
  public Path registrationSocket() {
    return pluginsRegistryDir.resolve(driver + "-reg.sock");
  }

  /** The DRA and health services' socket: {@code <plugins>/<driver>/dra.sock}. */
  public Path draSocket() {
    return kubeletPluginsDir.resolve(driver).resolve("dra.sock");
  }

  /** CDI vendor of the claim specs: {@code k8s.<driver>}, as NVIDIA's driver names its own. */
  public String cdiVendor() {
    return "k8s." + driver;
  }

  /** Fails with a message naming the path if either socket's path is too long to bind. */
  void checkSocketPaths() throws IOException {
    UnixGrpc.checkSocketPath(registrationSocket());
    UnixGrpc.checkSocketPath(draSocket());
  }
}
