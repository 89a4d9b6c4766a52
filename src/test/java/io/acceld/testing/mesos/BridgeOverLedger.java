package io.acceld.testing.mesos;

import io.acceld.allocation.RuntimeSpecs;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.config.HostPort;
import io.acceld.ledger.DeviceLedger;
import io.acceld.mesos.MesosBridge;
import io.acceld.mesos.containment.ContainmentSettings;
import io.acceld.testing.CgroupLeftovers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The real Mesos bridge over a given ledger, on a free loopback port without authentication, with a
 * /proc fixture of 8 CPUs and 16 GiB under {@code root} (nothing reserved, so every device and all
 * of it is offered).
 */
public final class BridgeOverLedger {
  private BridgeOverLedger() {}

  /**
   * The default containment (devices, memory, cpu; tasks as their user), but with root tasks
   * allowed (the fixtures' frameworks name user root), under this test JVM's cgroup parent.
   */
  public static ContainmentSettings rootTasksAllowed() {
    return rootTasksAllowed(CgroupLeftovers.PARENT);
  }

  /** The same under {@code parent}: for an agent that runs beside one on the JVM's own. */
  public static ContainmentSettings rootTasksAllowed(String parent) {
    ContainmentSettings d = ContainmentSettings.defaults();
    return new ContainmentSettings(
        d.isolation(), d.switchUser(), true, d.cgroupRoot(), d.devRoot(), d.setpriv(), parent);
  }

  public static MesosBridge start(Path root, Path stateDir, DeviceLedger ledger)
      throws IOException {
    Path proc = Files.createDirectories(root.resolve("proc"));
    StringBuilder cpuinfo = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      cpuinfo.append("processor\t: ").append(i).append("\nmodel name\t: Test CPU\n\n");
    }
    Files.writeString(proc.resolve("cpuinfo"), cpuinfo);
    Files.writeString(proc.resolve("meminfo"), "MemTotal:       16777216 kB\n");
    return MesosBridge.start(
        new MesosBridge.Options(
            new HostPort("127.0.0.1", 0),
            Optional.empty(),
            false,
            stateDir,
            proc,
            "node-1",
            Duration.ofSeconds(15),
            "cpus:0;mem:0;disk:0",
            true,
            Duration.ofMinutes(1),
            Duration.ofMillis(200),
            BridgeOverLedger.rootTasksAllowed()),
        ledger,
        new TopologyAwareChooser(),
        new RuntimeSpecs(Path.of("/dev"), Optional.empty()),
        () -> true,
        Clock.systemUTC());
  }
}
