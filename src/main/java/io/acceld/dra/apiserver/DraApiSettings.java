package io.acceld.dra.apiserver;

import io.acceld.config.ConfigException;
import io.acceld.kube.KubeConfig;
import io.acceld.kube.KubeConfigLoader;
import io.acceld.util.ClientText;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What the API-server side needs to run.
 *
 * @param driver the DRA driver name ({@code --dra-driver}), a DNS subdomain of at most 63 chars
 * @param nodeName this node's name, as the Node object has it
 * @param kube how to reach the API server
 * @param timings how often and how patiently it talks to the API server
 */
public record DraApiSettings(String driver, String nodeName, KubeConfig kube, Timings timings) {
  public DraApiSettings {
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(kube, "kube");
    Objects.requireNonNull(timings, "timings");
    if (driver.isEmpty()
        || driver.length() > 63
        || !driver.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?")) {
      throw new ConfigException(
          "--dra-driver "
              + ClientText.quote(driver)
              + " must be a lower-case DNS subdomain of at most 63 characters, such as gpu.acceld.io");
    }
    if (nodeName.isBlank()) {
      throw new ConfigException(
          "--dra-driver needs this node's name: set --node-name or $NODE_NAME (the downward"
              + " API's spec.nodeName)");
    }
  }

  /**
   * The settings for {@code driver} on {@code nodeName}, with the API server found from {@code
   * kubeconfigFlag} ({@code --kubeconfig}, empty when not given), else {@code $KUBECONFIG} in
   * {@code env}, else in-cluster.
   *
   * @throws ConfigException naming what is missing or wrong
   */
  public static DraApiSettings load(
      String driver, String nodeName, String kubeconfigFlag, Map<String, String> env) {
    return new DraApiSettings(
        driver,
        nodeName,
        KubeConfigLoader.load(kubeconfigFlag, env, KubeConfigLoader.SERVICE_ACCOUNT_DIR),
        Timings.DEFAULT);
  }

  /** This with other timings: for tests. */
  public DraApiSettings withTimings(Timings other) {
    return new DraApiSettings(driver, nodeName, kube, other);
  }

  /**
   * @param requestTimeout the deadline of one request (and of a watch's first answer)
   * @param settle how long a change waits for others to share its write
   * @param minWriteInterval the least time between two rounds of writes: one a second
   * @param backoffFirst the first wait after a failure; doubles up to {@code backoffMax}, jittered
   * @param backoffMax the longest wait after failures
   * @param watchTimeout what a watch asks the server to end it after (jittered by up to a fifth),
   *     so that a half-dead connection is replaced; it resumes from the last resourceVersion
   */
  public record Timings(
      Duration requestTimeout,
      Duration settle,
      Duration minWriteInterval,
      Duration backoffFirst,
      Duration backoffMax,
      Duration watchTimeout) {
    public static final Timings DEFAULT =
        new Timings(
            Duration.ofSeconds(10),
            Duration.ofMillis(50),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            Duration.ofSeconds(30),
            Duration.ofMinutes(10));

    public Timings {
      Objects.requireNonNull(requestTimeout, "requestTimeout");
      Objects.requireNonNull(settle, "settle");
      Objects.requireNonNull(minWriteInterval, "minWriteInterval");
      Objects.requireNonNull(backoffFirst, "backoffFirst");
      Objects.requireNonNull(backoffMax, "backoffMax");
      Objects.requireNonNull(watchTimeout, "watchTimeout");
    }
  }
}
