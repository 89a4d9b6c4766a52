package io.acceld.mesos.scheduler;

import io.acceld.config.HostPort;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * The master's part of the bridge's settings.
 *
 * @param dir the bridge's state directory ({@code <state-dir>/mesos}): master.json lives here
 * @param procRoot {@code --proc-root}, where CPUs and memory are read
 * @param sandboxRoot where task sandboxes go: its file system is the offered disk
 * @param address {@code --mesos-address}: the master's and the agent's address in events
 * @param hostname this node's name in offers and MasterInfo
 * @param heartbeat {@code --mesos-heartbeat}
 * @param reserve {@code --mesos-reserve}, {@code cpus:1;mem:1024;disk:0}
 * @param filterGpuResources {@code --mesos-filter-gpu-resources}
 */
public record MasterSettings(
    Path dir,
    Path procRoot,
    Path sandboxRoot,
    HostPort address,
    String hostname,
    Duration heartbeat,
    String reserve,
    boolean filterGpuResources) {
  public MasterSettings {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(procRoot, "procRoot");
    Objects.requireNonNull(sandboxRoot, "sandboxRoot");
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(hostname, "hostname");
    Objects.requireNonNull(heartbeat, "heartbeat");
    Objects.requireNonNull(reserve, "reserve");
  }
}
