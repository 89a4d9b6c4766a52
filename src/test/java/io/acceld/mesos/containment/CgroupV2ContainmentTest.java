package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.MesosIsolation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The contract with a v2 fence: a BPF device program on a cgroup2 directory. On a hybrid node (this
 * one and CI) the cgroup2 mount at {@code unified/} has no controllers, so the device fence and
 * killing are tested here against the kernel, memory and cpu on v2 only against files ({@link
 * CgroupV2LimitsTest}). The kernel runs cgroup device programs on every open, even with the v1
 * devices controller active, which these tests show: the v1 devices cgroup of the probes is the
 * root one, which allows everything.
 */
class CgroupV2ContainmentTest extends ContainmentContract {
  @Override
  Containment containment(ContainmentSettings settings) {
    Path root = CgroupFixture.CGROUP_ROOT;
    if (!Files.isRegularFile(root.resolve("cgroup.controllers"))) {
      root = root.resolve("unified");
    }
    return Containment.create(settings, new CgroupLayout.Unified(root));
  }

  @Override
  Set<MesosIsolation> isolation() {
    return Set.of(MesosIsolation.DEVICES);
  }

  @Override
  String capability() {
    return "cgroup-v2-bpf";
  }

  /**
   * ALLOW_MULTI programs must all allow: a widened fence only works with the old program gone, and
   * a fence that kept every program it was ever given would grow a program per task.
   */
  @Override
  void afterDeviceUpdate(Fence fence) throws Exception {
    assertThat(((CgroupV2Fence) fence).attachedPrograms()).containsExactly(Bpf.PROGRAM_NAME);
  }

  @Test
  void withoutCgroupKillFreezingAndKillingEveryPidDoesIt() throws Exception {
    Fence fence = create("old-kernel", List.of());
    long orphan = Probes.termDeafOrphan(fence);
    assertThat(Probes.ended(orphan)).isFalse();

    assertThat(((CgroupV2Fence) fence).withoutKillFile().killAll(Duration.ofSeconds(5))).isTrue();

    assertThat(Probes.ended(orphan)).isTrue();
    assertThat(
            Files.readString(Path.of(fence.describe().cgroups().get(0), "cgroup.freeze")).strip())
        .as("thawed again")
        .isEqualTo("0");
  }
}
