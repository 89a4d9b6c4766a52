package io.acceld.mesos.containment;

import java.util.Set;

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
    java.nio.file.Path root = CgroupFixture.CGROUP_ROOT;
    if (!java.nio.file.Files.isRegularFile(root.resolve("cgroup.controllers"))) {
      root = root.resolve("unified");
    }
    return Containment.create(settings, new CgroupLayout.Unified(root));
  }

  @Override
  Set<Isolation> isolation() {
    return Set.of(Isolation.DEVICES);
  }

  @Override
  String capability() {
    return "cgroup-v2-bpf";
  }
}
