package io.acceld.testing;

import io.acceld.simulate.FixtureNode;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The flags that run the daemon on a fixture node with the NVML double, serving a kubelet double,
 * with everything it writes under {@code root} (never the machine's {@code /var/lib/acceld}) and
 * its ports picked free. Tests add what they are about.
 */
public final class DaemonFlags {
  private DaemonFlags() {}

  public static Map<String, String> onFixture(
      Path root, FixtureNode node, NvmlDouble nvml, KubeletDouble kubelet) {
    Map<String, String> flags = new HashMap<>();
    flags.put("sysfs-root", node.tree().sysfsRoot().toString());
    flags.put("dev-root", node.tree().devRoot().toString());
    flags.put("proc-root", node.tree().procRoot().toString());
    flags.put("nvml-library", nvml.libraryPath().toString());
    flags.put("device-plugin-dir", kubelet.deviceDir().toString());
    flags.put("pod-resources-socket", root.resolve("none.sock").toString());
    flags.put("state-dir", root.resolve("state").toString());
    flags.put("metrics-address", "127.0.0.1:0");
    // Never the machine's NFD directory; a test about labels creates this one's directory.
    flags.put("node-labels-file", root.resolve("features.d/acceld").toString());
    return flags;
  }

  /** {@link #onFixture} plus the Mesos bridge on a free loopback port, reserving nothing. */
  public static Map<String, String> withMesos(
      Path root, FixtureNode node, NvmlDouble nvml, KubeletDouble kubelet, String heartbeat) {
    Map<String, String> flags = onFixture(root, node, nvml, kubelet);
    flags.put("mesos-address", "127.0.0.1:0");
    flags.put("mesos-heartbeat", heartbeat);
    flags.put("mesos-reserve", "cpus:0;mem:0;disk:0");
    // the fixtures' frameworks name user root; their tasks run fenced all the same
    flags.put("mesos-allow-root-tasks", "true");
    flags.put("mesos-cgroup-parent", CgroupLeftovers.PARENT);
    return flags;
  }
}
