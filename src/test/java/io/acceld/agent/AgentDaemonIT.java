package io.acceld.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceld.cli.CliContext;
import io.acceld.cli.Main;
import io.acceld.config.ConfigLoader;
import io.acceld.nvml.NvmlEventType;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.NotifyReceiver;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.KubeletDouble;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What `acceld run` runs, end to end: kubelet servers, health, metrics and the HTTP endpoints. */
class AgentDaemonIT {
  @TempDir Path root;
  final HttpClient http = HttpClient.newHttpClient();

  HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The daemon on the fixture node with the NVML double, serving {@code kubelet}, with its state
   * and metrics port its own (never the machine's {@code /var/lib/acceld}), plus {@code more}.
   */
  private Map<String, String> flags(
      FixtureNode node, NvmlDouble nvml, KubeletDouble kubelet, Map<String, String> more) {
    Map<String, String> flags = DaemonFlags.onFixture(root, node, nvml, kubelet);
    flags.putAll(more);
    return flags;
  }

  @Test
  void healthMetricsAndEndpointsFollowTheNode() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        AgentDaemon daemon =
            AgentDaemon.start(
                ConfigLoader.load(
                    flags(
                        node,
                        nvml,
                        kubelet,
                        Map.of("telemetry-interval", "200ms", "node-name", "gpu-node-7")),
                    Map.of(),
                    Optional.empty()))) {
      int port = daemon.metricsServer().port();
      kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(5));
      kubelet.awaitCondition("ready", () -> status(port, "/readyz") == 200, Duration.ofSeconds(5));
      assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);

      String uuid = node.gpus().get(3).uuid();
      nvml.control().acceld_fake_inject_event(3, NvmlEventType.XID_CRITICAL_ERROR, 79);
      kubelet.awaitDevices(
          "nvidia.com/gpu",
          l -> l.stream().anyMatch(d -> d.id().equals(uuid) && !d.healthy()),
          Duration.ofSeconds(5));

      // acceld devices --agent shows the running agent's live health, with the XID reason.
      StringWriter out = new StringWriter();
      int exit =
          Main.execute(
              new String[] {"devices", "--json", "--agent", "http://127.0.0.1:" + port},
              new CliContext(
                  Map.of(), new PrintWriter(out, true), new PrintWriter(new StringWriter(), true)));
      assertThat(exit).isZero();
      JsonNode sick = null;
      for (JsonNode d : new ObjectMapper().readTree(out.toString())) {
        if (d.get("id").asText().equals(uuid)) {
          sick = d;
        }
      }
      assertThat(sick).isNotNull();
      assertThat(sick.get("health").asText()).isEqualTo("Unhealthy");
      assertThat(sick.get("healthReason").asText()).contains("XID 79").contains("since");

      kubelet.awaitCondition(
          "telemetry sampled",
          () -> scrape(port).contains("DCGM_FI_DEV_GPU_TEMP{"),
          Duration.ofSeconds(5));
      String metrics = scrape(port);
      assertThat(metrics)
          .contains("DCGM_FI_DEV_POWER_USAGE{", "DCGM_FI_DEV_FB_USED{", "Hostname=\"gpu-node-7\"")
          .contains("acceld_device_health{device=\"" + uuid + "\"")
          .contains("acceld_device_xid_errors_total{")
          .contains("acceld_kubelet_registered{resource=\"nvidia.com/gpu\"} 1.0")
          .contains("acceld_grpc_server_calls_total{")
          .contains("acceld_nvml_calls_total{")
          // bound after Register, still there: the JVM and process series, without the two that
          // fail promtool
          .contains("jvm_memory_used_bytes{", "jvm_gc_", "process_cpu_seconds_total ")
          .doesNotContain("process_cpu_time_ns_total", "system_cpu_count");
      assertPromtoolClean(metrics);
    }
  }

  @Test
  void underSystemdTheDaemonSaysReadyOnceTheKubeletHasRegisteredIt() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    try (NotifyReceiver systemd = NotifyReceiver.listen(root.resolve("notify").toString());
        KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        AgentDaemon daemon =
            AgentDaemon.start(
                ConfigLoader.load(
                    flags(node, nvml, kubelet, Map.of()),
                    Map.of("NOTIFY_SOCKET", systemd.address()),
                    Optional.empty()))) {
      kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(5));
      kubelet.awaitCondition("READY=1", () -> systemd.received("READY=1"), Duration.ofSeconds(5));
      assertThat(daemon.kubelet().ready()).isTrue();
      assertThat(systemd.datagrams()).anyMatch(d -> d.contains("STATUS=Serving"));
    }
  }

  int status(int port, String path) {
    try {
      return get(port, path).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }

  String scrape(int port) {
    try {
      return get(port, "/metrics").body();
    } catch (Exception e) {
      return "";
    }
  }

  static void assertPromtoolClean(String exposition) throws Exception {
    Path promtool = Path.of("/usr/bin/promtool");
    if (!Files.isExecutable(promtool)) {
      assertThat(System.getenv("CI")).as("promtool is required in CI").isNull();
      assumeTrue(false, "promtool is not installed");
    }
    Process p =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    p.getOutputStream().write(exposition.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String report = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(Waits.exited(p, Duration.ofSeconds(30))).isTrue();
    assertThat(report).isEmpty();
    assertThat(p.exitValue()).isZero();
  }
}
