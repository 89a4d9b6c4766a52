package io.acceld.mesos.containment;

import io.acceld.config.MesosIsolation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A container on cgroup v1: one directory per controller, {@code <mount>/<parent>/<id>}. The
 * freezer cgroup is always made, since killing everything needs it.
 */
public final class CgroupV1Fence implements Fence {
  private static final Logger log = LoggerFactory.getLogger(CgroupV1Fence.class);

  /** The kernel's freezer settles FREEZING to FROZEN once every task stopped; seconds at worst. */
  private static final Duration FREEZE_WAIT = Duration.ofSeconds(2);

  private static final Duration REMOVE_WAIT = Duration.ofSeconds(5);

  private static final String LIMIT = "memory.limit_in_bytes";
  private static final String MEMSW = "memory.memsw.limit_in_bytes";
  private static final String SOFT_LIMIT = "memory.soft_limit_in_bytes";

  private final FenceSpec spec;
  private final Map<String, Path> dirs; // controller -> the container's directory in it
  private final Pids pids;

  /** In force; {@link #update} replaces it, {@code /state} reads it from other threads. */
  private volatile Limits limits;

  /** In force; {@link #updateDevices} replaces it, {@code /state} reads it from other threads. */
  private volatile List<DeviceNode> denied;

  CgroupV1Fence(FenceSpec spec, Map<String, Path> dirs, Pids pids) {
    this.spec = spec;
    this.dirs = Map.copyOf(dirs);
    this.pids = pids;
    this.limits = spec.limits();
    this.denied = spec.denied();
  }

  /**
   * For a fence re-attached after a restart: the memory limit in force is the cgroup's, which an
   * {@link #update} before the restart may have left above what the tasks ask for now (a lower
   * limit is refused while the container uses more). Unreadable, the limits stay those computed:
   * they are only shown.
   */
  CgroupV1Fence withLimitInForce() {
    Path memory = dirs.get("memory");
    if (memory != null) {
      try {
        long current = Long.parseLong(CgroupFiles.read(memory.resolve(LIMIT)).strip());
        limits = new Limits(current, limits.cpus(), limits.cpuQuota());
      } catch (IOException | IllegalArgumentException e) {
        // no memory cgroup (any more), or a value no fence wrote
      }
    }
    return this;
  }

  /** The controllers a fence with {@code isolation} uses. */
  static List<String> controllers(Set<MesosIsolation> isolation) {
    List<String> list = new ArrayList<>(List.of("freezer"));
    if (isolation.contains(MesosIsolation.DEVICES)) {
      list.add("devices");
    }
    if (isolation.contains(MesosIsolation.MEMORY)) {
      list.add("memory");
    }
    if (isolation.contains(MesosIsolation.CPU)) {
      list.add("cpu");
    }
    return list;
  }

  /** Writes the limits and the device denials into freshly made directories. */
  void configure() throws IOException {
    Path devices = dirs.get("devices");
    if (devices != null) {
      // A new devices cgroup inherits its parent's allow-all; each deny entry is an exception
      // to it, checked on open and mknod ("rwm").
      for (DeviceNode node : spec.denied()) {
        CgroupFiles.write(devices.resolve("devices.deny"), "c " + node.number() + " rwm");
      }
    }
    Path memory = dirs.get("memory");
    if (memory != null) {
      String bytes = Long.toString(spec.limits().memoryBytes());
      CgroupFiles.write(memory.resolve("memory.limit_in_bytes"), bytes);
      // memory+swap capped at the same value: the limit is the task's memory, not RAM plus swap.
      // The file exists only with swap accounting; it must not be set below limit_in_bytes.
      Path memsw = memory.resolve(MEMSW);
      if (Files.exists(memsw)) {
        CgroupFiles.write(memsw, bytes);
      }
      CgroupFiles.write(memory.resolve(SOFT_LIMIT), bytes);
    }
    Path cpu = dirs.get("cpu");
    if (cpu != null) {
      writeCpu(cpu, spec.limits(), false);
    }
  }

  private static void writeCpu(Path cpu, Limits limits, boolean hadQuota) throws IOException {
    CgroupFiles.write(cpu.resolve("cpu.shares"), Long.toString(limits.cpuShares()));
    if (limits.cpuQuota()) {
      CgroupFiles.write(cpu.resolve("cpu.cfs_period_us"), Long.toString(Limits.CFS_PERIOD_MICROS));
      CgroupFiles.write(cpu.resolve("cpu.cfs_quota_us"), Long.toString(limits.cpuQuotaMicros()));
    } else if (hadQuota) {
      CgroupFiles.write(cpu.resolve("cpu.cfs_quota_us"), "-1"); // no task asks for one any more
    }
  }

  /**
   * The hard limit is compared with what the cgroup holds, not with what this handle last wrote: a
   * fence re-attached after a restart knows only the limits its tasks ask for now. memsw may never
   * be below limit_in_bytes (EINVAL, MESOS-7237): raising writes memsw first, lowering writes
   * limit_in_bytes first. A lower limit the kernel refuses (EBUSY: it could not reclaim down to it)
   * is {@link MemoryLowering#refused kept higher}.
   */
  @Override
  public synchronized void update(Limits requested) throws IOException {
    Limits before = limits;
    long hard = requested.memoryBytes();
    Path memory = dirs.get("memory");
    if (memory != null) {
      long current = Long.parseLong(CgroupFiles.read(memory.resolve(LIMIT)).strip());
      String bytes = Long.toString(requested.memoryBytes());
      Path memsw = memory.resolve(MEMSW);
      boolean swapAccounting = Files.exists(memsw);
      if (requested.memoryBytes() > current) {
        if (swapAccounting) {
          CgroupFiles.write(memsw, bytes);
        }
        CgroupFiles.write(memory.resolve(LIMIT), bytes);
      } else if (requested.memoryBytes() < current) {
        try {
          CgroupFiles.write(memory.resolve(LIMIT), bytes);
          if (swapAccounting) {
            CgroupFiles.write(memsw, bytes);
          }
          resetHighWaterMarks(memory);
        } catch (IOException e) {
          // what is in force now: memsw refused alone leaves limit_in_bytes lowered
          hard = Long.parseLong(CgroupFiles.read(memory.resolve(LIMIT)).strip());
          MemoryLowering.refused(containerId(), hard, requested.memoryBytes(), e);
        }
      }
      CgroupFiles.write(memory.resolve(SOFT_LIMIT), bytes);
    }
    Path cpu = dirs.get("cpu");
    if (cpu != null) {
      writeCpu(cpu, requested, before.cpuQuota());
    }
    limits = new Limits(hard, requested.cpus(), requested.cpuQuota());
  }

  @Override
  public String containerId() {
    return spec.containerId();
  }

  @Override
  public Limits limits() {
    return limits;
  }

  @Override
  public List<DeviceNode> denied() {
    return denied;
  }

  /**
   * Writes only the difference: a deny entry for each node newly denied, and for each node no
   * longer denied an allow entry, which in a cgroup that allows by default (as ours inherit) takes
   * the matching deny exception away. Denials first, so a failure half-way never leaves the cgroup
   * wider than both the old and the new list.
   */
  @Override
  public synchronized void updateDevices(List<DeviceNode> wanted) throws IOException {
    Path devices = dirs.get("devices");
    if (devices != null) {
      List<DeviceNode> before = denied;
      for (DeviceNode node : wanted) {
        if (before.stream().noneMatch(node::sameDevice)) {
          CgroupFiles.write(devices.resolve("devices.deny"), "c " + node.number() + " rwm");
        }
      }
      for (DeviceNode node : before) {
        if (wanted.stream().noneMatch(node::sameDevice)) {
          CgroupFiles.write(devices.resolve("devices.allow"), "c " + node.number() + " rwm");
        }
      }
    }
    denied = List.copyOf(wanted);
  }

  @Override
  public List<String> launchPrefix() {
    return LaunchPrefix.of(procsFiles(), spec.user(), spec.setpriv());
  }

  private List<Path> procsFiles() {
    return CgroupLayout.V1_CONTROLLERS.stream()
        .filter(dirs::containsKey)
        .map(c -> dirs.get(c).resolve("cgroup.procs"))
        .toList();
  }

  /**
   * Freezes the freezer cgroup, so nothing can fork while we list it, SIGKILLs every pid in it,
   * then thaws it: a frozen task only acts on SIGKILL once thawed.
   */
  @Override
  public boolean killAll(Duration timeout) throws IOException {
    Path freezer = dirs.get("freezer");
    if (freezer == null || !Files.isDirectory(freezer)) {
      return empty(); // nothing can be frozen; only a cleanup after a failed create gets here
    }
    return CgroupFiles.killUntilEmpty(timeout, () -> killRound(freezer), this::empty);
  }

  private void killRound(Path freezer) throws IOException {
    Path state = freezer.resolve("freezer.state");
    CgroupFiles.write(state, "FROZEN");
    try {
      // If it does not settle (a task in uninterruptible sleep), kill what is listed anyway.
      CgroupFiles.await(FREEZE_WAIT, () -> CgroupFiles.read(state).strip().equals("FROZEN"));
      // v1's freezer freezes the whole subtree; a root task may have made child cgroups
      for (Path cgroup : CgroupFiles.tree(freezer)) {
        pids.killAll(cgroup.resolve("cgroup.procs"));
      }
    } finally {
      CgroupFiles.write(state, "THAWED");
    }
  }

  private boolean empty() throws IOException {
    for (Path dir : dirs.values()) {
      for (Path cgroup : CgroupFiles.tree(dir)) {
        if (!CgroupFiles.pids(cgroup.resolve("cgroup.procs")).isEmpty()) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * {@code memory.oom_control}'s {@code oom_kill} counts the processes the OOM killer killed in
   * this cgroup (Linux 4.13 on); without it, {@code memory.failcnt} says the limit was reached.
   */
  @Override
  public boolean memoryLimitHit() throws IOException {
    Path memory = dirs.get("memory");
    if (memory == null || !Files.isDirectory(memory)) {
      return false;
    }
    // oom_kill counts every OOM kill of a process in the cgroup, whatever limit caused it: its own,
    // an ancestor's, or the node running out. It was this container's own limit only if its usage
    // reached it: the high-water mark is at the limit (failcnt would say so too, but kernels since
    // 6.12 no longer count it unless asked).
    OptionalLong kills = CgroupFiles.keyed(memory.resolve("memory.oom_control"), "oom_kill");
    return (kills.isEmpty() || kills.getAsLong() > 0)
        && (reached(memory, "memory.") || reached(memory, "memory.memsw."));
  }

  /**
   * After a lower limit took: a high-water mark from the tasks before it may be above the new
   * limit, and {@link #memoryLimitHit} would take a later kill that this limit did not cause for
   * one it did. Writing 0 restarts each mark from the current usage. Best-effort: a mark left high
   * only risks that misreading.
   */
  private void resetHighWaterMarks(Path memory) {
    for (String mark : List.of("memory.max_usage_in_bytes", "memory.memsw.max_usage_in_bytes")) {
      Path file = memory.resolve(mark);
      try {
        if (Files.exists(file)) {
          CgroupFiles.write(file, "0");
        }
      } catch (IOException e) {
        log.debug("Could not reset {} of container {}: {}", mark, containerId(), e.getMessage());
      }
    }
  }

  /** Whether the counter {@code prefix} refused a charge or its high-water mark is at its limit. */
  private static boolean reached(Path memory, String prefix) throws IOException {
    Path limit = memory.resolve(prefix + "limit_in_bytes");
    if (!Files.exists(limit)) {
      return false; // no memsw: swap accounting off
    }
    return count(memory.resolve(prefix + "failcnt")) > 0
        || count(memory.resolve(prefix + "max_usage_in_bytes")) >= count(limit);
  }

  private static long count(Path file) throws IOException {
    return Long.parseLong(CgroupFiles.read(file).strip());
  }

  @Override
  public void destroy() throws IOException {
    if (!empty() && !killAll(REMOVE_WAIT)) {
      throw new IOException("container " + containerId() + " still has processes after SIGKILL");
    }
    IOException failed = null;
    for (Path dir : dirs.values()) {
      try {
        CgroupFiles.removeTree(dir, REMOVE_WAIT);
      } catch (IOException e) {
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  @Override
  public FenceDescription describe() {
    return spec.describe(
        "v1",
        CgroupLayout.V1_CONTROLLERS.stream().filter(dirs::containsKey).map(dirs::get).toList(),
        limits,
        denied);
  }
}
