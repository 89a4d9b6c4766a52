package io.acceld.chaos;

import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.KubeletDouble;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The daemon {@code acceld run} runs (kubelet servers, health, metrics and {@code /healthz}, the
 * Mesos bridge), in this JVM on the eight-GPU fixture node with the NVML double, serving a kubelet
 * double: the in-process chaos suites' node. Faults go through the fixture tree and the double.
 */
final class ChaosNode implements AutoCloseable {
  static final String GPU = "nvidia.com/gpu";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  final FixtureNode node;
  final NvmlDouble nvml;
  final KubeletDouble kubelet;
  final AgentDaemon daemon;

  private ChaosNode(FixtureNode node, NvmlDouble nvml, KubeletDouble kubelet, AgentDaemon daemon) {
    this.node = node;
    this.nvml = nvml;
    this.kubelet = kubelet;
    this.daemon = daemon;
  }

  /** The daemon under {@code root}, with the Mesos bridge, plus {@code flags} over the defaults. */
  static ChaosNode start(Path root, Map<String, String> flags) throws IOException {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    KubeletDouble kubelet =
        KubeletDouble.builder(root.resolve("kubelet/device-plugins"))
            .rpcWatchdog(Duration.ofSeconds(5))
            .start();
    try {
      Map<String, String> all = DaemonFlags.withMesos(root, node, nvml, kubelet, "1s");
      all.putAll(flags);
      AgentDaemon daemon = AgentDaemon.start(ConfigLoader.load(all, Map.of(), Optional.empty()));
      return new ChaosNode(node, nvml, kubelet, daemon);
    } catch (IOException | RuntimeException e) {
      kubelet.close();
      throw e;
    }
  }

  String uuid(int gpu) {
    return node.gpus().get(gpu).uuid();
  }

  int mesosPort() {
    return daemon.mesos().orElseThrow().port();
  }

  /** {@code GET path} on the metrics address, or empty if nothing answers within 2 s. */
  Optional<HttpResponse<String>> get(String path) {
    try {
      return Optional.of(
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + daemon.metricsServer().port() + path))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString()));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** The ledger as the operator sees it ({@code /devices}). */
  Map<String, Holding> devices() throws IOException {
    HttpResponse<String> r =
        get("/devices").orElseThrow(() -> new AssertionError("/devices did not answer"));
    return Holding.parse(r.body());
  }

  @Override
  public void close() {
    daemon.close();
    kubelet.close();
  }
}
