package io.acceld.agent;

import static io.acceld.kubelet.podresources.FakePodResources.container;
import static io.acceld.kubelet.podresources.FakePodResources.pod;
import static io.acceld.kubelet.podresources.FakePodResources.pods;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceld.kubelet.podresources.FakePodResources;
import io.acceld.ledger.LeaseCheckpoint;
import io.acceld.testing.Eventually;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.transport.UnixGrpc;
import io.grpc.Server;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end with the shipped jar as a process: the kubelet double allocates a GPU, the pod shows
 * in pod-resources, {@code acceld devices --agent} shows the pod as the holder; then the agent is
 * killed with SIGKILL and started again with pod-resources gone, and still shows the holder (from
 * its checkpoint, before any poll could tell it); when pod-resources comes back without the pod,
 * the lease is released.
 */
class LeaseRestartIT {
  static final String GPU = "nvidia.com/gpu";

  @TempDir Path dir;
  final UnixGrpc grpc = new UnixGrpc("test-podresources", 1);
  final ExecutorService executor = Executors.newCachedThreadPool();
  final FakePodResources podResources = new FakePodResources();
  final List<Process> agents = new ArrayList<>();
  Server server;
  int port;

  @AfterEach
  void stop() throws Exception {
    for (Process p : agents) {
      Waits.exited(p.destroyForcibly(), Duration.ofSeconds(10));
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    grpc.close();
    executor.shutdownNow();
  }

  Path podResourcesSocket() {
    return dir.resolve("kubelet/pod-resources/kubelet.sock");
  }

  void servePodResources() throws Exception {
    Files.createDirectories(podResourcesSocket().getParent());
    server = grpc.startServer(podResourcesSocket(), List.of(podResources), List.of(), executor);
  }

  void stopPodResources() throws Exception {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server = null;
    Files.deleteIfExists(podResourcesSocket());
  }

  Process launch(KubeletDouble kubelet, String log) throws Exception {
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            // the test's own: a killed agent cannot remove its simulated node (and NVML double)
            "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")),
            "-jar",
            System.getProperty("acceld.jar", "target/acceld.jar"),
            "run",
            "--simulate",
            "--simulate-dir",
            Files.createDirectories(dir.resolve("simulated")).toString(),
            "--device-plugin-dir",
            kubelet.deviceDir().toString(),
            "--pod-resources-socket",
            podResourcesSocket().toString(),
            "--state-dir",
            dir.resolve("state").toString(),
            "--metrics-address",
            "127.0.0.1:" + port);
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(log).toFile())
            .start();
    agents.add(p);
    return p;
  }

  /** What {@code GET /devices} says of {@code id}, or empty while the agent does not answer. */
  Optional<JsonNode> device(String id) {
    try {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/devices"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      for (JsonNode d : new ObjectMapper().readTree(r.body())) {
        if (d.get("id").asText().equals(id)) {
          return Optional.of(d);
        }
      }
      return Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  String metrics() throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  boolean heldBy(String id, String kind, String holder) {
    return device(id)
        .filter(d -> d.get("holderKind").asText().equals(kind))
        .filter(d -> holder == null || d.path("holder").asText().equals(holder))
        .isPresent();
  }

  @Test
  void aPodsLeaseSurvivesSigkillOfTheAgentAndIsReleasedWhenThePodGoes() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    servePodResources();
    try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
      Process first = launch(kubelet, "first.log");
      kubelet.awaitRegistered(GPU, Duration.ofSeconds(30));
      String gpu =
          kubelet.awaitDevices(GPU, l -> l.size() == 8, Duration.ofSeconds(10)).stream()
              .map(DeviceState::id)
              .sorted()
              .findFirst()
              .orElseThrow();

      kubelet.allocateOne(GPU, List.of(gpu));
      Eventually.await(
          "the pending lease", Duration.ofSeconds(10), () -> heldBy(gpu, "kubelet_pending", null));
      podResources.answer(pods(pod("ml", "trainer-0", container("worker", GPU, gpu))));
      Eventually.await(
          "the pod as holder",
          Duration.ofSeconds(10),
          () -> heldBy(gpu, "kubelet_pod", "ml/trainer-0/worker"));
      LeaseCheckpoint checkpoint = new LeaseCheckpoint(dir.resolve("state"));
      Eventually.await(
          "the checkpoint holds the pod",
          () -> {
            try {
              return checkpoint.read().stream()
                  .anyMatch(l -> l.holder().name().equals("ml/trainer-0/worker"));
            } catch (LeaseCheckpoint.UnusableException e) {
              return false;
            }
          });

      // The kubelet's pod-resources goes away, and the agent dies without a chance to clean up.
      stopPodResources();
      int callsAtKill = podResources.calls();
      first.destroyForcibly();
      assertThat(Waits.exited(first, Duration.ofSeconds(10))).isTrue();

      launch(kubelet, "second.log");
      Eventually.await(
          "the restarted agent answers", Duration.ofSeconds(30), () -> device(gpu).isPresent());
      assertThat(heldBy(gpu, "kubelet_pod", "ml/trainer-0/worker"))
          .as(
              "holder restored from the checkpoint: %s",
              Files.readString(dir.resolve("second.log"), StandardCharsets.UTF_8))
          .isTrue();
      assertThat(podResources.calls())
          .as("pod-resources was not asked again")
          .isEqualTo(callsAtKill);
      int callsBefore = podResources.calls();
      assertThat(metrics())
          .as("the lease in the metrics")
          .containsPattern(
              "acceld_device_leased\\{[^}]*device=\""
                  + gpu
                  + "\"[^}]*holder_kind=\"kubelet_pod\"[^}]*} 1")
          .containsPattern("acceld_ledger_leases\\{holder_kind=\"kubelet_pod\"} 1");

      // `acceld devices --agent` shows the same.
      Process cli =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-jar",
                  System.getProperty("acceld.jar", "target/acceld.jar"),
                  "devices",
                  "--agent",
                  "http://127.0.0.1:" + port)
              .redirectErrorStream(true)
              .start();
      String table = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(Waits.exited(cli, Duration.ofSeconds(30))).isTrue();
      assertThat(table).contains("pod ml/trainer-0/worker");

      // pod-resources back, without the pod: released.
      podResources.answer(pods());
      servePodResources();
      Eventually.await(
          "released once the pod is gone", Duration.ofSeconds(10), () -> heldBy(gpu, "free", null));
      assertThat(podResources.calls()).isGreaterThan(callsBefore);
    }
  }
}
