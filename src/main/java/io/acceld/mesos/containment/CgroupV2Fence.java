package io.acceld.mesos.containment;

import io.acceld.config.MesosIsolation;
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

  private final FenceSpec spec;
  private final Path dir;
  private final Pids pids;
  private final boolean killFile;

  CgroupV2Fence(FenceSpec spec, Path dir, Pids pids) {
    this(spec, dir, pids, true);
  }

  private CgroupV2Fence(FenceSpec spec, Path dir, Pids pids, boolean killFile) {
    this.spec = spec;
    this.dir = dir;
    this.pids = pids;
    this.killFile = killFile;
  }

  /** The same fence, killing as on kernels before 5.14 (no {@code cgroup.kill}): for tests. */
  CgroupV2Fence withoutKillFile() {
    return new CgroupV2Fence(spec, dir, pids, false);
  }

  /** Writes the limits and attaches the device program to a freshly made directory. */
  void configure(Bpf bpf) throws IOException {
    if (spec.isolation().contains(MesosIsolation.DEVICES)) {
      bpf.attachDeviceFence(dir, spec.denied());
    }
    if (spec.isolation().contains(MesosIsolation.MEMORY)) {
      CgroupFiles.write(dir.resolve("memory.max"), Long.toString(spec.limits().memoryBytes()));
      // no swap beyond the limit, as on v1; the file exists only with swap support
      Path swap = dir.resolve("memory.swap.max");
      if (Files.exists(swap)) {
        CgroupFiles.write(swap, "0");
      }
    }
    if (spec.isolation().contains(MesosIsolation.CPU)) {
      CgroupFiles.write(dir.resolve("cpu.weight"), Long.toString(spec.limits().cpuWeight()));
      if (spec.limits().cpuQuota()) {
        CgroupFiles.write(
            dir.resolve("cpu.max"),
            spec.limits().cpuQuotaMicros() + " " + Limits.CFS_PERIOD_MICROS);
      }
    }
  }

  @Override
  public String containerId() {
    return spec.containerId();
  }

  @Override
  public Limits limits() {
    return spec.limits();
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

  /** {@code memory.events}' {@code oom_kill}: processes the OOM killer killed in this subtree. */
  @Override
  public boolean memoryLimitHit() throws IOException {
    OptionalLong kills = CgroupFiles.keyed(dir.resolve("memory.events"), "oom_kill");
    return kills.isPresent() && kills.getAsLong() > 0;
  }

  @Override
  public void destroy() throws IOException {
    if (events("populated") != 0 && !killAll(REMOVE_WAIT)) {
      throw new IOException("container " + containerId() + " still has processes after SIGKILL");
    }
    // removing the cgroup detaches and frees its device program
    CgroupFiles.removeTree(dir, REMOVE_WAIT);
  }

  @Override
  public FenceDescription describe() {
    return spec.describe("v2", List.of(dir));
  }
}
