package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.config.MesosIsolation;
import io.acceld.testing.LogCapture;
import io.acceld.testing.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The contract on cgroup v1 controllers, as detected under /sys/fs/cgroup; plus memory and cpu. */
class CgroupV1ContainmentTest extends ContainmentContract {
  @Override
  Containment containment(ContainmentSettings settings) {
    Containment c = Containment.create(settings);
    if (!(c.layout().orElse(null) instanceof CgroupLayout.Legacy)) {
      // a pure v2 node: its preflight would pass, for v2; these tests need v1 controllers
      CgroupFixture.require(
          new Preflight(
              MesosIsolation.format(settings.isolation()),
              List.of(
                  "no cgroup v1 controllers under " + settings.cgroupRoot() + ": " + c.layout())),
          capability());
    }
    return c;
  }

  @Override
  Set<MesosIsolation> isolation() {
    return Set.of(MesosIsolation.DEVICES, MesosIsolation.MEMORY, MesosIsolation.CPU);
  }

  @Override
  String capability() {
    return "cgroup-v1";
  }

  @Test
  void aMemoryHogIsOomKilledAtTheLimitAndTheFenceSaysSo() throws Exception {
    Limits limits = new Limits(32L << 20, 1, false);
    Fence fence = containment.create("hog", limits, List.of(), Optional.empty());
    fences.add(fence);
    assertThat(fence.memoryLimitHit()).isFalse();

    // tail keeps the last lines, and /dev/zero has no newline: it buffers until killed
    Probes.Result r = Probes.run(fence, "/bin/sh", "-c", "exec tail /dev/zero");

    assertThat(r.exit()).as("killed by SIGKILL").isEqualTo(128 + 9);
    assertThat(fence.memoryLimitHit()).isTrue();
    assertThat(fence.memoryLimitMessage()).contains(String.valueOf(32L << 20));
  }

  /**
   * {@code oom_kill} in {@code memory.oom_control} counts every OOM kill in the cgroup; a task
   * killed at an ancestor's limit (or by a node out of memory) did not hit its own, and must not be
   * failed as if it had: its own {@code failcnt} stays 0.
   */
  @Test
  void anOomKillAtAnAncestorsLimitIsNotTheContainersLimitHit() throws Exception {
    Fence fence =
        containment.create(
            "squeezed", new Limits(256L << 20, 1, false), List.of(), Optional.empty());
    fences.add(fence);
    Path memory = CgroupFixture.CGROUP_ROOT.resolve("memory").resolve(cgroups.parent);
    Files.writeString(memory.resolve("memory.limit_in_bytes"), String.valueOf(32L << 20));

    Probes.Result r = Probes.run(fence, "/bin/sh", "-c", "exec tail /dev/zero");

    assertThat(r.exit()).as("SIGKILLed by the OOM killer").isEqualTo(128 + 9);
    assertThat(Files.readString(memory.resolve("squeezed/memory.oom_control")))
        .as("the kernel counts the kill in the container")
        .containsPattern("oom_kill [1-9]");
    assertThat(fence.memoryLimitHit()).isFalse();
  }

  @Test
  void limitsAreWritten() throws Exception {
    Limits limits = new Limits(48L << 20, 1.5, true);
    Fence fence = containment.create("limited", limits, List.of(), Optional.empty());
    fences.add(fence);
    Path memory =
        CgroupFixture.CGROUP_ROOT.resolve("memory").resolve(cgroups.parent).resolve("limited");
    Path cpu = CgroupFixture.CGROUP_ROOT.resolve("cpu").resolve(cgroups.parent).resolve("limited");

    assertThat(Files.readString(memory.resolve("memory.limit_in_bytes")).strip())
        .isEqualTo(String.valueOf(48L << 20));
    assertThat(Files.readString(cpu.resolve("cpu.shares")).strip()).isEqualTo("1536");
    assertThat(Files.readString(cpu.resolve("cpu.cfs_quota_us")).strip()).isEqualTo("150000");
    assertThat(Files.readString(cpu.resolve("cpu.cfs_period_us")).strip()).isEqualTo("100000");
  }

  @Test
  void anUpdateRaisesAndLowersTheLimitsAndTheCpu() throws Exception {
    Fence fence =
        containment.create("growing", new Limits(48L << 20, 1, true), List.of(), Optional.empty());
    fences.add(fence);
    Path memory =
        CgroupFixture.CGROUP_ROOT.resolve("memory").resolve(cgroups.parent).resolve("growing");
    Path cpu = CgroupFixture.CGROUP_ROOT.resolve("cpu").resolve(cgroups.parent).resolve("growing");

    fence.update(new Limits(96L << 20, 2, true));

    assertThat(Files.readString(memory.resolve("memory.limit_in_bytes")).strip())
        .isEqualTo(String.valueOf(96L << 20));
    assertThat(Files.readString(memory.resolve("memory.memsw.limit_in_bytes")).strip())
        .isEqualTo(String.valueOf(96L << 20));
    assertThat(Files.readString(cpu.resolve("cpu.cfs_quota_us")).strip()).isEqualTo("200000");

    fence.update(new Limits(32L << 20, 0.5, false));

    // both written in the kernel's order, or it would have refused with EINVAL
    assertThat(Files.readString(memory.resolve("memory.limit_in_bytes")).strip())
        .isEqualTo(String.valueOf(32L << 20));
    assertThat(Files.readString(memory.resolve("memory.memsw.limit_in_bytes")).strip())
        .isEqualTo(String.valueOf(32L << 20));
    assertThat(Files.readString(memory.resolve("memory.soft_limit_in_bytes")).strip())
        .isEqualTo(String.valueOf(32L << 20));
    assertThat(Files.readString(cpu.resolve("cpu.shares")).strip()).isEqualTo("512");
    assertThat(Files.readString(cpu.resolve("cpu.cfs_quota_us")).strip()).isEqualTo("-1");
    assertThat(fence.limits()).isEqualTo(new Limits(32L << 20, 0.5, false));
    assertThat(fence.memoryLimitMessage()).contains(String.valueOf(32L << 20));
  }

  /**
   * A lower hard limit than the container uses is refused by the kernel (EBUSY: no swap, and
   * anonymous memory cannot be reclaimed): the higher one stays in force, one WARN names the
   * container, the process lives on, and once it has let go the next update gets the lower limit.
   */
  @Test
  void aLowerLimitThanInUseIsKeptHigherWithAWarningAndTakenLater() throws Exception {
    Fence fence =
        containment.create(
            "shrinking", new Limits(96L << 20, 1, false), List.of(), Optional.empty());
    fences.add(fence);
    Path memory =
        CgroupFixture.CGROUP_ROOT.resolve("memory").resolve(cgroups.parent).resolve("shrinking");
    // dd holds its 48 MiB block, read from /dev/zero and so touched, while the pipe is full
    Process hog =
        Probes.start(
            fence, "/bin/sh", "-c", "dd if=/dev/zero bs=48M count=1 2>/dev/null | sleep 600");
    Probes.awaitJoined(fence, hog);
    assertThat(
            CgroupFiles.await(
                Waits.scaled(Duration.ofSeconds(5)),
                () ->
                    Long.parseLong(
                            CgroupFiles.read(memory.resolve("memory.usage_in_bytes")).strip())
                        > 48L << 20))
        .as("the container's usage reaches dd's block")
        .isTrue();

    try (LogCapture logs = LogCapture.of(MemoryLowering.class)) {
      fence.update(new Limits(16L << 20, 0.5, false));

      assertThat(Files.readString(memory.resolve("memory.limit_in_bytes")).strip())
          .isEqualTo(String.valueOf(96L << 20));
      assertThat(Files.readString(memory.resolve("memory.soft_limit_in_bytes")).strip())
          .isEqualTo(String.valueOf(16L << 20));
      assertThat(fence.limits()).isEqualTo(new Limits(96L << 20, 0.5, false));
      assertThat(logs.warnings())
          .singleElement()
          .satisfies(
              w ->
                  assertThat(w)
                      .contains("Container shrinking keeps its memory limit of " + (96L << 20))
                      .contains("to " + (16L << 20) + " bytes"));
    }
    assertThat(hog.isAlive()).as("the container is not killed for it").isTrue();

    assertThat(fence.killAll(Waits.scaled(Duration.ofSeconds(5)))).isTrue();
    fence.update(new Limits(16L << 20, 0.5, false));

    assertThat(Files.readString(memory.resolve("memory.limit_in_bytes")).strip())
        .isEqualTo(String.valueOf(16L << 20));
    assertThat(fence.limits().memoryBytes()).isEqualTo(16L << 20);
    // dd's 48 MiB high-water mark would otherwise read as this 16 MiB limit reached
    assertThat(
            Long.parseLong(Files.readString(memory.resolve("memory.max_usage_in_bytes")).strip()))
        .isLessThan(16L << 20);
    assertThat(fence.memoryLimitHit()).isFalse();
  }

  @Test
  void aFailedCreateRemovesWhatItMadeAndNothingElse() throws Exception {
    Path memory =
        CgroupFixture.CGROUP_ROOT.resolve("memory").resolve(cgroups.parent).resolve("partial");
    Files.createDirectories(memory); // as if left by a container the agent does not know yet
    try {
      assertThatThrownBy(() -> containment.create("partial", LIMITS, List.of(), Optional.empty()))
          .hasMessageContaining("already has a cgroup at " + memory);

      assertThat(memory).isDirectory();
      for (String controller : List.of("freezer", "devices", "cpu")) {
        assertThat(
                CgroupFixture.CGROUP_ROOT
                    .resolve(controller)
                    .resolve(cgroups.parent)
                    .resolve("partial"))
            .doesNotExist();
      }
    } finally {
      Files.delete(memory);
    }
  }
}
