package io.acceld.fuzz;

import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.CgroupLeftovers;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.KubeletDouble;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The real agent on the eight-GPU fixture node (real sysfs, /dev and /proc trees, the NVML double)
 * with the Mesos bridge on a free loopback port and a kubelet double: the two doors a hostile
 * client can knock on, a TCP one and a Unix socket one.
 */
final class HostileNode implements AutoCloseable {
  static final String GPU = "nvidia.com/gpu";
  static final Duration WAIT = Duration.ofSeconds(20);

  final KubeletDouble kubelet;
  final AgentDaemon daemon;
  final Path pluginSocket;

  private HostileNode(KubeletDouble kubelet, AgentDaemon daemon, Path pluginSocket) {
    this.kubelet = kubelet;
    this.daemon = daemon;
    this.pluginSocket = pluginSocket;
  }

  static HostileNode start(Path root) throws IOException, InterruptedException {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet"));
    AgentDaemon daemon;
    try {
      daemon =
          AgentDaemon.start(
              ConfigLoader.load(
                  Map.ofEntries(
                      Map.entry("sysfs-root", node.tree().sysfsRoot().toString()),
                      Map.entry("dev-root", node.tree().devRoot().toString()),
                      Map.entry("proc-root", node.tree().procRoot().toString()),
                      Map.entry("nvml-library", nvml.libraryPath().toString()),
                      Map.entry("device-plugin-dir", kubelet.deviceDir().toString()),
                      Map.entry("pod-resources-socket", root.resolve("none.sock").toString()),
                      Map.entry("state-dir", root.resolve("state").toString()),
                      Map.entry("metrics-address", "127.0.0.1:0"),
                      Map.entry("mesos-address", "127.0.0.1:0"),
                      Map.entry("mesos-heartbeat", "1s"),
                      Map.entry("mesos-reserve", "cpus:0;mem:0;disk:0"),
                      Map.entry("mesos-cgroup-parent", CgroupLeftovers.PARENT)),
                  Map.of(),
                  Optional.empty()));
    } catch (IOException | RuntimeException e) {
      kubelet.close();
      throw e;
    }
    try {
      Path socket = kubelet.awaitRegistered(GPU, WAIT).endpoint();
      return new HostileNode(kubelet, daemon, socket);
    } catch (RuntimeException | Error e) {
      daemon.close();
      kubelet.close();
      throw e;
    }
  }

  int mesosPort() {
    return daemon.mesos().orElseThrow().port();
  }

  @Override
  public void close() {
    daemon.close();
    kubelet.close();
  }
}
