package io.acceld.bench;

import io.acceld.testing.SelfSignedCertificate;
import io.acceld.testing.kube.KubeApiDouble;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One configuration of the simulated node the footprint harness starts the agent on: the issue's
 * eight-GPU node, the same with 64 GPUs, and eight GPUs shared 128 ways (1,024 advertised IDs).
 *
 * @param name short name, used in figure keys and {@code --modes}
 * @param title how the report names it
 * @param resource the resource the kubelet double waits for
 * @param ids how many IDs the first complete ListAndWatch message lists
 * @param idleCpu whether to measure idle CPU after the settle (the eight-GPU node only: the window
 *     is the slowest part of a run)
 * @param flags what the mode adds to {@code run --simulate} besides its config file; for the DRA
 *     and Mesos modes only the flag that turns them on, which names the mode when an older agent
 *     refuses it
 */
record FootprintMode(
    String name, String title, String resource, int ids, boolean idleCpu, List<String> flags) {

  static final String GPU = "nvidia.com/gpu";

  /** 8 GPUs × 128 replicas: the 1,024 advertised IDs. */
  static final int REPLICAS = 128;

  static final List<FootprintMode> ALL =
      List.of(
          new FootprintMode("8", "8 GPUs", GPU, 8, true, List.of()),
          new FootprintMode("64", "64 GPUs", GPU, 64, false, List.of("--simulate-gpus", "64")),
          new FootprintMode(
              "1024", "1,024 IDs (8 GPUs × 128 replicas)", GPU, 8 * REPLICAS, false, List.of()),
          new FootprintMode("dra", "8 GPUs, DRA on", GPU, 8, true, List.of("--dra-driver")),
          new FootprintMode(
              "dra-tls", "8 GPUs, DRA on, API over TLS", GPU, 8, true, List.of("--dra-driver")),
          new FootprintMode(
              "mesos", "8 GPUs, Mesos bridge on", GPU, 8, true, List.of("--mesos-address")));

  /** The node the DRA mode's API-server stand-in knows, as its {@code --node-name}. */
  static final String DRA_NODE = "bench-fp";

  /**
   * The flags this mode adds to {@code run --simulate}; writes its config file under root. What the
   * mode needs for the run besides (DRA's API-server stand-in) goes into {@code resources}, which
   * the run closes after the agent has stopped.
   */
  List<String> flags(Path root, List<AutoCloseable> resources) throws IOException {
    switch (name) {
      case "1024" -> {
        // The sharing section as docs/configuration.md writes it; the resource keeps its name, so
        // the kubelet sees nvidia.com/gpu with IDs <id>::<k>.
        Path config = root.resolve("config.yaml");
        Files.writeString(config, "resources:\n  " + GPU + ":\n    replicas: " + REPLICAS + "\n");
        return List.of("--config", config.toString());
      }
      case "dra", "dra-tls" -> {
        // The driver as the Helm chart runs it: its kubelet sockets, and slices published to an
        // API server: the stand-in on loopback, over plain HTTP, or (dra-tls) over HTTPS with a
        // certificate of its own that the kubeconfig names as the cluster's CA, as on a real
        // cluster, where the TLS stack is part of the agent's footprint.
        KubeApiDouble api = KubeApiDouble.start(name.equals("dra") ? null : tls(root));
        resources.add(api);
        api.addNode(DRA_NODE, "uid-" + DRA_NODE);
        Path kube = Files.createDirectories(root.resolve("kube"));
        return List.of(
            "--dra-driver",
            "gpu.acceld.io",
            "--kubeconfig",
            api.kubeconfig(kube, null).toString(),
            "--node-name",
            DRA_NODE,
            "--kubelet-plugins-dir",
            root.resolve("kubelet/plugins").toString());
      }
      case "mesos" -> {
        // The bridge with its default isolation (devices, memory, cpu), listening and idle.
        return List.of("--mesos-address", "127.0.0.1:" + freePort());
      }
      default -> {
        return flags;
      }
    }
  }

  private static KubeApiDouble.Tls tls(Path root) throws IOException {
    Path crt = root.resolve("api.crt");
    Path key = root.resolve("api.key");
    try {
      SelfSignedCertificate.write(crt, key, null);
      return new KubeApiDouble.Tls(
          Files.readAllBytes(crt), SelfSignedCertificate.serving(crt, key));
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("cannot make the API stand-in's certificate: " + e.getMessage(), e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Whether this mode needs a flag an older agent may not have (then a refusal is a skip). */
  boolean mayBeRefused() {
    return !flags.isEmpty();
  }
}
