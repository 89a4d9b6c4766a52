package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.LogCapture;
import io.acceld.testing.kubelet.KubeletDouble;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node whose kubelet has not made its directories yet: the agent waits, creating nothing. */
class KubeletDirectoriesIT {
  @TempDir Path root;

  @Test
  void runWaitsForTheDevicePluginDirectoryWithOneLineAndServesOnceItExists() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    Path deviceDir = root.resolve("kubelet/device-plugins");
    try (LogCapture log = LogCapture.of(KubeletPublisher.class);
        AgentHarness agent =
            AgentHarness.on(node.tree())
                .flag("device-plugin-dir", deviceDir.toString())
                .start(root.resolve("etc"))) {

      assertThat(deviceDir).doesNotExist();
      assertThat(root.resolve("kubelet")).doesNotExist();
      assertThat(agent.kubelet().alive()).isTrue();
      assertThat(agent.kubelet().ready()).isFalse();
      assertThat(log.infos())
          .filteredOn(l -> l.startsWith("Waiting for the kubelet"))
          .singleElement()
          .satisfies(l -> assertThat(l).contains(deviceDir.toString(), "--device-plugin-dir"));

      try (KubeletDouble kubelet = KubeletDouble.start(deviceDir)) {
        kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(5));
        kubelet.awaitCondition("ready", () -> agent.kubelet().ready(), Duration.ofSeconds(5));
      }
      assertThat(log.infos()).filteredOn(l -> l.startsWith("Waiting for the kubelet")).hasSize(1);
    }
  }

  @Test
  void theRegistrationSeriesExistAtZeroWhileTheKubeletIsMissing() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    try (AgentDaemon daemon =
        AgentDaemon.start(
            ConfigLoader.load(
                Map.of(
                    "sysfs-root", node.tree().sysfsRoot().toString(),
                    "dev-root", node.tree().devRoot().toString(),
                    "proc-root", node.tree().procRoot().toString(),
                    "nvml-library", "none",
                    "device-plugin-dir", root.resolve("kubelet/device-plugins").toString(),
                    "pod-resources-socket", root.resolve("none.sock").toString(),
                    "state-dir", root.resolve("state").toString(),
                    "metrics-address", "127.0.0.1:0"),
                Map.of(),
                Optional.empty()))) {
      String metrics =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:" + daemon.metricsServer().port() + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();

      assertThat(metrics)
          .contains("acceld_kubelet_registered{resource=\"nvidia.com/gpu\"} 0.0")
          .contains("acceld_kubelet_registrations_total{resource=\"nvidia.com/gpu\"} 0.0");
    }
  }
}
