package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.MesosIsolation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * v2 memory and cpu against the kernel: a cgroup2 root with the memory and cpu controllers, as on a
 * pure v2 node ({@link CgroupV2LimitsTest} checks the same writes against a file tree).
 *
 * <p>On a v1 or hybrid node (this development machine and CI among them) memory and cpu are v1
 * controllers, which is what the agent fences with there ({@link CgroupV1ContainmentTest} tests
 * that against the kernel); a cgroup2 mount there can never have them. So these tests are reported
 * as skipped, with that reason, on such a node, and {@code src/test/vm/cgroup-v2-vm.sh} runs them
 * in a pure v2 guest. On a pure v2 node without the controllers they fail with the preflight's
 * reason unless {@code CONTAINMENT_TESTS_LACK} names {@code cgroup-v2-memory}.
 */
class CgroupV2KernelLimitsTest {
  private static final String CAPABILITY = "cgroup-v2-memory";

  @TempDir Path temp;
  private final CgroupFixture cgroups = new CgroupFixture();
  private final List<Fence> fences = new ArrayList<>();
  private Containment containment;

  @BeforeEach
  void preflight() {
    Path root = CgroupFixture.CGROUP_ROOT;
    Assumptions.assumeTrue(
        Files.isRegularFile(root.resolve("cgroup.controllers")),
        () ->
            root
                + " is not a cgroup2 root: memory and cpu are v1 controllers on this node, where"
                + " the agent fences with v1 (CgroupV1ContainmentTest); src/test/vm/cgroup-v2-vm.sh"
                + " runs these tests in a pure cgroup v2 guest");
    containment =
        Containment.create(
            new ContainmentSettings(
                EnumSet.of(MesosIsolation.MEMORY, MesosIsolation.CPU),
                false,
                true,
                CgroupFixture.CGROUP_ROOT,
                temp,
                ContainmentSettings.DEFAULT_SETPRIV,
                cgroups.parent),
            new CgroupLayout.Unified(root));
    CgroupFixture.require(containment.preflight(), CAPABILITY);
  }

  @AfterEach
  void nothingLeft() throws IOException {
    cgroups.destroyAndCheck(fences);
  }

  private Fence create(String id, Limits limits) throws IOException {
    Fence fence = containment.create(id, limits, List.of(), Optional.empty());
    fences.add(fence);
    return fence;
  }

  private static Path dir(Fence fence) {
    return Path.of(fence.describe().cgroups().get(0));
  }

  private static String read(Fence fence, String file) throws IOException {
    return Files.readString(dir(fence).resolve(file)).strip();
  }

  @Test
  void aProcessOverMemoryMaxIsOomKilledAndMemoryEventsSaysSo() throws Exception {
    Fence fence = create("hog", new Limits(32L << 20, 1, false));
    assertThat(read(fence, "memory.max")).isEqualTo(String.valueOf(32L << 20));
    assertThat(fence.memoryLimitHit()).isFalse();

    // tail keeps the last line of /dev/zero, which never ends: it grows until the limit stops it
    Probes.Result r = Probes.run(fence, "/bin/sh", "-c", "exec tail /dev/zero");

    assertThat(r.exit()).as("SIGKILLed by the OOM killer").isEqualTo(128 + 9);
    assertThat(fence.memoryLimitHit()).isTrue();
    assertThat(CgroupFiles.keyed(dir(fence).resolve("memory.events"), "oom_kill").getAsLong())
        .isPositive();
  }

  /**
   * A kill the container's own limit did not cause (here an ancestor's memory.max; a node out of
   * memory or a systemd slice's MemoryMax alike) counts in its {@code oom_kill} too: the kernel
   * counts every OOM kill in the victim's cgroup, the limit it hit ({@code oom}) only where that
   * limit is. The task must not be failed as over its own memory.
   */
  @Test
  void anOomKillAtAnAncestorsLimitIsNotTheContainersLimitHit() throws Exception {
    Fence fence = create("squeezed", new Limits(256L << 20, 1, false));
    Path parent = dir(fence).getParent();
    Files.writeString(parent.resolve("memory.max"), String.valueOf(32L << 20));

    Probes.Result r = Probes.run(fence, "/bin/sh", "-c", "exec tail /dev/zero");

    assertThat(r.exit()).as("SIGKILLed by the OOM killer").isEqualTo(128 + 9);
    assertThat(CgroupFiles.keyed(dir(fence).resolve("memory.events"), "oom_kill").getAsLong())
        .isPositive();
    assertThat(CgroupFiles.keyed(dir(fence).resolve("memory.events"), "oom").getAsLong()).isZero();
    assertThat(fence.memoryLimitHit()).isFalse();
  }

  @Test
  void aProcessUnderTheLimitRunsAndNoLimitIsHit() throws Exception {
    Fence fence = create("small", new Limits(64L << 20, 1, false));

    Probes.Result r = Probes.run(fence, "/bin/sh", "-c", "head -c 8000000 /dev/zero | wc -c");

    assertThat(r.out().strip()).isEqualTo("8000000");
    assertThat(fence.memoryLimitHit()).isFalse();
  }

  @Test
  void theKernelTakesTheCpuWeightAndQuotaAndTheirUpdates() throws Exception {
    Fence fence = create("cpu", new Limits(64L << 20, 2, true));
    assertThat(read(fence, "cpu.weight")).isEqualTo("79");
    assertThat(read(fence, "cpu.max")).isEqualTo("200000 100000");
    assertThat(read(fence, "memory.low")).isEqualTo(String.valueOf(64L << 20));

    fence.update(new Limits(128L << 20, 0.25, false));

    assertThat(read(fence, "cpu.weight"))
        .isEqualTo(String.valueOf(new Limits(4L << 20, 0.25, false).cpuWeight()));
    assertThat(read(fence, "cpu.max")).isEqualTo("max 100000");
    assertThat(read(fence, "memory.max")).isEqualTo(String.valueOf(128L << 20));
    assertThat(read(fence, "memory.low")).isEqualTo(String.valueOf(128L << 20));

    // a task ended: with nothing in the cgroup using memory, the hard limit comes down too
    fence.update(new Limits(64L << 20, 0.5, true));

    assertThat(read(fence, "memory.max")).isEqualTo(String.valueOf(64L << 20));
    assertThat(read(fence, "memory.low")).isEqualTo(String.valueOf(64L << 20));
    assertThat(read(fence, "cpu.max")).isEqualTo("50000 100000");
    assertThat(fence.limits().memoryBytes()).isEqualTo(64L << 20);
  }

  @Test
  void aReattachedFenceReadsTheHardLimitInForceFromTheKernel() throws Exception {
    Fence made = create("kept", new Limits(48L << 20, 1, false));
    made.update(new Limits(96L << 20, 1, false));

    Fence fence =
        containment.reattach(
            "kept", new Limits(48L << 20, 1, false), Optional.empty(), Optional.empty());

    assertThat(fence.limits().memoryBytes()).isEqualTo(96L << 20);
  }

  @Test
  void killingTheFenceEndsEveryProcessInIt() throws Exception {
    Fence fence = create("kill", new Limits(64L << 20, 1, false));
    long orphan = Probes.termDeafOrphan(fence);
    assertThat(Probes.ended(orphan)).isFalse();

    assertThat(fence.killAll(java.time.Duration.ofSeconds(5))).isTrue();

    assertThat(Probes.ended(orphan)).isTrue();
  }
}
