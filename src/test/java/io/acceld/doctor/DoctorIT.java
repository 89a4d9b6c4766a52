package io.acceld.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Eventually;
import io.acceld.testing.Waits;
import java.io.IOException;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code acceld doctor} beside a running agent: the shipped jar as a real process over the
 * simulated node, holding the state directory's lock, serving the Mesos bridge and the kubelet
 * double. Doctor must tell that agent from a stray one by {@code --agent}, see its bridge as ours,
 * take nothing from it, and report what the agent marks unhealthy.
 */
class DoctorIT {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  @TempDir Path root;

  @Test
  void doctorChecksARunningAgentWithoutDisturbingIt() throws Exception {
    try (DoctorNode node = new DoctorNode(root)) {
      int metrics = freePort();
      int mesos = freePort();
      node.flag("mesos-address", "127.0.0.1:" + mesos);
      Process agent = startAgent(node, metrics);
      try {
        Eventually.await(
            "the agent is ready", Duration.ofSeconds(60), () -> status(metrics, "/readyz") == 200);
        int registrations = node.kubelet.registerAttempts("nvidia.com/gpu");

        // Without --agent, a held lock is another agent's: `acceld run` here would exit.
        DoctorNode.Run alone = node.doctor();

        assertThat(alone.exit()).as(alone.out()).isEqualTo(1);
        assertThat(alone.line("state lock"))
            .startsWith(
                "✗ state lock: "
                    + root.resolve("state/acceld.lock")
                    + " is held by pid "
                    + agent.pid()
                    + ": an agent already runs over "
                    + root.resolve("state"))
            .contains(
                "— fix: if that agent is meant to run, check it instead: acceld doctor --agent");
        assertThat(alone.line("mesos address"))
            .startsWith(
                "✓ mesos address: 127.0.0.1:" + mesos + " is in use by an acceld Mesos bridge");
        assertThat(alone.line("kubelet device-plugin dir"))
            .contains("acceld's sockets: acceld-nvidia.com_gpu.sock");
        assertThat(alone.lines())
            .filteredOn(l -> l.startsWith("✗"))
            .singleElement()
            .satisfies(l -> assertThat(l).startsWith("✗ state lock"));

        // With --agent, the same lock is that agent's, and the agent itself is checked.
        String url = "http://127.0.0.1:" + metrics;
        DoctorNode.Run checked = node.doctor("--agent", url);

        assertThat(checked.exit()).as(checked.out()).isZero();
        assertThat(checked.line("state lock"))
            .contains("is held by pid " + agent.pid() + ", the running agent (it answers --agent)");
        assertThat(checked.line("agent healthz"))
            .isEqualTo("✓ agent healthz: " + url + "/healthz: alive");
        assertThat(checked.line("agent readyz"))
            .isEqualTo("✓ agent readyz: " + url + "/readyz: ready");
        assertThat(checked.line("agent devices"))
            .isEqualTo(
                "✓ agent devices: "
                    + url
                    + "/devices: advertises 8 device(s), all Healthy, the ones discovery finds");

        // What the agent saw as an event (an XID), doctor learns from it.
        String uuid = node.node.gpus().get(3).uuid();
        node.nvml.appendControl("xid 3 79");
        Eventually.await(
            "the agent marks GPU 3",
            Duration.ofSeconds(30),
            () -> body(metrics, "/devices").contains("\"healthReason\""));
        DoctorNode.Run marked = node.doctor("--agent", url);

        assertThat(marked.exit()).isEqualTo(1);
        assertThat(marked.line("agent devices"))
            .startsWith("✗ agent devices: " + url + "/devices: it marks " + uuid + " Unhealthy (")
            .contains("XID 79")
            .contains(
                "— fix: for a device marked for an XID, ECC error or lost GPU: drain it and"
                    + " reset the GPU (nvidia-smi -r -i <index>)");

        // Doctor took nothing: the agent still holds its lock and never saw a second Register.
        assertThat(agent.isAlive()).isTrue();
        assertThat(node.kubelet.registerAttempts("nvidia.com/gpu")).isEqualTo(registrations);
        assertThat(status(metrics, "/healthz")).isEqualTo(200);
      } finally {
        agent.destroyForcibly();
        assertThat(Waits.exited(agent, Duration.ofSeconds(10))).isTrue();
      }
    }
  }

  /** {@code acceld run} from the shipped jar over the node's flags, metrics on {@code port}. */
  private Process startAgent(DoctorNode node, int metrics) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Djava.io.tmpdir=" + Files.createDirectories(root.resolve("tmp")),
                "-jar",
                System.getProperty("acceld.jar", "target/acceld.jar"),
                "run",
                "--metrics-address",
                "127.0.0.1:" + metrics,
                "--mesos-reserve",
                "cpus:0;mem:0;disk:0"));
    node.flags().forEach((k, v) -> command.addAll(List.of("--" + k, v)));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(root.resolve("agent.log").toFile())
        .start();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static int status(int port, String path) {
    HttpResponse<String> r = get(port, path);
    return r == null ? -1 : r.statusCode();
  }

  private static String body(int port, String path) {
    HttpResponse<String> r = get(port, path);
    return r == null ? "" : r.body();
  }

  private static HttpResponse<String> get(int port, String path) {
    try {
      return HTTP.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
              .timeout(Duration.ofSeconds(2))
              .build(),
          HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
