package io.acceld.mesos.containment;

import io.acceld.config.MesosIsolation;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * A container on cgroup v2: one directory, {@code <root>/<parent>/<id>}, its devices fenced by a
 * BPF program attached to it (v2 has no devices controller).
 */
public final class CgroupV2Fence implements Fence {
  private static final Duration FREEZE_WAIT = Duration.ofSeconds(2);
  private static final Duration REMOVE_WAIT = Duration.ofSeconds(5);
  private static final String MAX = "memory.max";
  private static final String LOW = "memory.low";

  private final FenceSpec spec;
  private final Path dir;
  private final Pids pids;
  private final boolean killFile;

  /** In force; {@link #update} replaces it, {@code /state} reads it from other threads. */
  private volatile Limits limits;

  /** In force; {@link #updateDevices} replaces it, {@code /state} reads it from other threads. */
  private volatile List<DeviceNode> denied;

  /**
   * The descriptor of the device program attached now, kept so that {@link #updateDevices} can
   * detach it; -1 before {@link #configure} and in a fence re-attached after a restart, whose
   * program {@link Bpf#replace} then finds on the cgroup.
   */
  @GuardedBy("this")
  private int program = -1;

  CgroupV2Fence(FenceSpec spec, Path dir, Pids pids) {
    this(spec, dir, pids, true);
  }

  private CgroupV2Fence(FenceSpec spec, Path dir, Pids pids, boolean killFile) {
    this.spec = spec;
    this.dir = dir;
    this.pids = pids;
    this.killFile = killFile;
    this.limits = spec.limits();
    this.denied = spec.denied();
  }

  /**
   * For a fence re-attached after a restart: the memory limit in force is the cgroup's, which an
   * {@link #update} before the restart may have left above what the tasks ask for now (a lower
   * limit is refused while the container uses more). Unreadable or unlimited, the limits stay those
   * computed: they are only shown.
   */
  CgroupV2Fence withLimitInForce() {
    if (spec.isolation().contains(MesosIsolation.MEMORY)) {
      try {
        long current = Long.parseLong(CgroupFiles.read(dir.resolve(MAX)).strip());
        limits = new Limits(current, limits.cpus(), limits.cpuQuota());
      } catch (IOException | IllegalArgumentException e) {
        // no memory controller here (any more), "max", or a value no fence wrote
      }
    }
    return this;
  }

  /** The same fence, killing as on kernels before 5.14 (no {@code cgroup.kill}): for tests. */
  CgroupV2Fence withoutKillFile() {
    return new CgroupV2Fence(spec, dir, pids, false);
  }

  /** Writes the limits and attaches the device program to a freshly made directory. */
  void configure(Bpf bpf) throws IOException {
    if (spec.isolation().contains(MesosIsolation.DEVICES)) {
      int attached = bpf.attachDeviceFence(dir, spec.denied());
      synchronized (this) {
        program = attached;
      }
    }
    if (spec.isolation().contains(MesosIsolation.MEMORY)) {
      String bytes = Long.toString(spec.limits().memoryBytes());
      CgroupFiles.write(dir.resolve(MAX), bytes);
      // no swap beyond the limit, as on v1; the file exists only with swap support
      Path swap = dir.resolve("memory.swap.max");
      if (Files.exists(swap)) {
        CgroupFiles.write(swap, "0");
      }
      CgroupFiles.write(dir.resolve(LOW), bytes); // Mesos's soft limit on v2
    }
    if (spec.isolation().contains(MesosIsolation.CPU)) {
      writeCpu(spec.limits(), false);
    }
  }

  private void writeCpu(Limits limits, boolean hadQuota) throws IOException {
    CgroupFiles.write(dir.resolve("cpu.weight"), Long.toString(limits.cpuWeight()));
    if (limits.cpuQuota()) {
      CgroupFiles.write(
          dir.resolve("cpu.max"), limits.cpuQuotaMicros() + " " + Limits.CFS_PERIOD_MICROS);
    } else if (hadQuota) {
      // no task asks for one any more
      CgroupFiles.write(dir.resolve("cpu.max"), "max " + Limits.CFS_PERIOD_MICROS);
    }
  }

  /**
   * The hard limit is compared with what the cgroup holds, not with what this handle last wrote: a
   * fence re-attached after a restart knows only the limits its tasks ask for now. A lower {@code
   * memory.max} is written only when {@code memory.current} is at most three quarters of it: the
   * kernel OOM-kills a container it cannot reclaim under a new {@code memory.max}, and the usage
   * read a moment before the write is all there is to go by, so the other quarter is for what a
   * running task allocates in between (Mesos never lowers the hard limit at all; v1 needs no
   * margin, its kernel refuses the write instead). Otherwise the higher limit {@link
   * MemoryLowering#refused stays}. {@code memory.swap.max} stays 0 either way.
   */
  @Override
  public synchronized void update(Limits requested) throws IOException {
    Limits before = limits;
    long hard = requested.memoryBytes();
    if (spec.isolation().contains(MesosIsolation.MEMORY)) {
      String max = CgroupFiles.read(dir.resolve(MAX)).strip();
      long current = max.equals("max") ? Long.MAX_VALUE : Long.parseLong(max);
      String bytes = Long.toString(requested.memoryBytes());
      if (requested.memoryBytes() > current) {
        CgroupFiles.write(dir.resolve(MAX), bytes);
      } else if (requested.memoryBytes() < current) {
        long used = Long.parseLong(CgroupFiles.read(dir.resolve("memory.current")).strip());
        if (used <= requested.memoryBytes() - requested.memoryBytes() / 4) {
          CgroupFiles.write(dir.resolve(MAX), bytes);
        } else {
          hard = current;
          MemoryLowering.refused(
              containerId(), current, requested.memoryBytes(), "it uses " + used + " bytes");
        }
      }
      CgroupFiles.write(dir.resolve(LOW), bytes);
    }
    if (spec.isolation().contains(MesosIsolation.CPU)) {
      writeCpu(requested, before.cpuQuota());
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

  @Override
  public synchronized void updateDevices(List<DeviceNode> wanted) throws IOException {
    if (spec.isolation().contains(MesosIsolation.DEVICES)) {
      program = new Bpf(Libc.get()).replace(dir, program, wanted);
    }
    denied = List.copyOf(wanted);
  }

  /** The names of the device programs attached to the cgroup itself: for tests. */
  List<String> attachedPrograms() throws IOException {
    return new Bpf(Libc.get()).attachedNames(dir);
  }

  @Override
  public List<String> launchPrefix() {
    return LaunchPrefix.of(List.of(dir.resolve("cgroup.procs")), spec.user(), spec.setpriv());
  }

  /**
   * {@code cgroup.kill} (Linux 5.14 on) SIGKILLs every process in the cgroup and its descendants,
   * forks in flight included. Without it: freeze ({@code cgroup.freeze}, settled when {@code
   * cgroup.events} says {@code frozen 1}), SIGKILL every listed pid, thaw.
   */
  @Override
  public boolean killAll(Duration timeout) throws IOException {
    if (!Files.isDirectory(dir)) {
      return true;
    }
    return CgroupFiles.killUntilEmpty(timeout, this::killRound, () -> events("populated") == 0);
  }

  private void killRound() throws IOException {
    Path kill = dir.resolve("cgroup.kill");
    if (killFile && Files.exists(kill)) {
      CgroupFiles.write(kill, "1");
      return;
    }
    Path freeze = dir.resolve("cgroup.freeze");
    CgroupFiles.write(freeze, "1");
    try {
      CgroupFiles.await(FREEZE_WAIT, () -> events("frozen") == 1);
      for (Path cgroup : CgroupFiles.tree(dir)) {
        pids.killAll(cgroup.resolve("cgroup.procs"));
      }
    } finally {
      CgroupFiles.write(freeze, "0");
    }
  }

  /** {@code cgroup.events}' value of {@code key}; {@code populated} covers descendants. */
  private long events(String key) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    return CgroupFiles.keyed(dir.resolve("cgroup.events"), key).orElse(0);
  }

  /**
   * {@code memory.events}: {@code oom_kill} counts every OOM kill of a process in this subtree,
   * whatever limit caused it (the node out of memory, an ancestor's {@code memory.max}); {@code
   * oom} counts the times this subtree's own limit was reached and the OOM killer ran. Both, or the
   * task of a container killed by another limit would be reported as over its own memory.
   */
  @Override
  public boolean memoryLimitHit() throws IOException {
    Path events = dir.resolve("memory.events");
    OptionalLong kills = CgroupFiles.keyed(events, "oom_kill");
    if (kills.isEmpty() || kills.getAsLong() == 0) {
      return false;
    }
    OptionalLong atLimit = CgroupFiles.keyed(events, "oom");
    return atLimit.isPresent() && atLimit.getAsLong() > 0;
  }

  @Override
  public void destroy() throws IOException {
    if (events("populated") != 0 && !killAll(REMOVE_WAIT)) {
      throw new IOException("container " + containerId() + " still has processes after SIGKILL");
    }
    // removing the cgroup detaches its device program; our descriptor is the last reference
    CgroupFiles.removeTree(dir, REMOVE_WAIT);
    synchronized (this) {
      new Bpf(Libc.get()).close(program);
      program = -1;
    }
  }

  @Override
  public FenceDescription describe() {
    return spec.describe("v2", List.of(dir), limits, denied);
  }
}
