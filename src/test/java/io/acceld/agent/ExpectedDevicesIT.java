package io.acceld.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.ConfigLoader;
import io.acceld.simulate.FakeNodeTree;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.LogCapture;
import io.acceld.testing.kubelet.KubeletDouble;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --expect-devices} on a real agent: a node that should have GPUs and has none is not ready,
 * says why on {@code /readyz}, shows expected versus found in metrics and in its start line.
 */
class ExpectedDevicesIT {
  @TempDir Path root;
  final HttpClient http = HttpClient.newHttpClient();

  Map<String, String> flags(FakeNodeTree tree, KubeletDouble kubelet) {
    Map<String, String> flags = new HashMap<>();
    flags.put("sysfs-root", tree.sysfsRoot().toString());
    flags.put("dev-root", tree.devRoot().toString());
    flags.put("proc-root", tree.procRoot().toString());
    flags.put("nvml-library", "none");
    flags.put("device-plugin-dir", kubelet.deviceDir().toString());
    flags.put("pod-resources-socket", root.resolve("none.sock").toString());
    flags.put("state-dir", root.resolve("state").toString());
    flags.put("metrics-address", "127.0.0.1:0");
    return flags;
  }

  HttpResponse<String> get(AgentDaemon daemon, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + daemon.metricsServer().port() + path))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aNodeWithoutTheExpectedGpusIsNotReadyAndSaysWhy() throws Exception {
    FakeNodeTree empty = new FakeNodeTree(root.resolve("node"));
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        LogCapture log = LogCapture.of(AgentDaemon.class)) {
      Map<String, String> flags = flags(empty, kubelet);
      flags.put("expect-devices", "nvidia.com/gpu>=1");
      try (AgentDaemon daemon =
          AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()))) {
        HttpResponse<String> ready = get(daemon, "/readyz");

        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body())
            .isEqualTo(
                "not ready: --expect-devices nvidia.com/gpu>=1 but 0 devices of nvidia.com/gpu"
                    + " were found\n");
        assertThat(get(daemon, "/healthz").statusCode()).isEqualTo(200);
        assertThat(get(daemon, "/metrics").body())
            .contains("acceld_expected_devices{resource=\"nvidia.com/gpu\"} 1.0")
            .contains("acceld_found_devices{resource=\"nvidia.com/gpu\"} 0.0");
        assertThat(log.infos())
            .anySatisfy(
                line ->
                    assertThat(line)
                        .startsWith("acceld ")
                        .contains("expect-devices=nvidia.com/gpu>=1 (flag)")
                        .endsWith("found: nvidia.com/gpu: 0 devices"));
      }
    }
  }

  @Test
  void aNodeWithTheExpectedGpusIsReady() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"))) {
      Map<String, String> flags = flags(node.tree(), kubelet);
      flags.put("expect-devices", "nvidia.com/gpu=8");
      try (AgentDaemon daemon =
          AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()))) {
        kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(5));
        kubelet.awaitCondition(
            "ready", () -> status(daemon, "/readyz") == 200, Duration.ofSeconds(5));

        String metrics = get(daemon, "/metrics").body();
        assertThat(metrics)
            .contains("acceld_expected_devices{resource=\"nvidia.com/gpu\"} 8.0")
            .contains("acceld_found_devices{resource=\"nvidia.com/gpu\"} 8.0");
        AgentDaemonIT.assertPromtoolClean(metrics);
      }
    }
  }

  int status(AgentDaemon daemon, String path) {
    try {
      return get(daemon, path).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }
}
