package io.acceld.mesos.containment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Assumptions;

/**
 * A unique cgroup parent for one test, {@code acceld-test-<random>/mesos} under each hierarchy, and
 * the check that the test left nothing in it. The test parent itself is always removed.
 *
 * <p>The package's tests run as root (CI does; as another user they fail, saying so) and need real
 * cgroups. A CI runner that lacks a kind sets {@code CONTAINMENT_TESTS_LACK} to a comma-separated
 * list of what it lacks ({@code cgroup-v1}: no v1 controllers; {@code cgroup-v2-bpf}: no cgroup2
 * mount or no BPF device programs; {@code hybrid}: not a v1 node with a cgroup2 mount at {@code
 * unified/}; {@code cgroup-v2-memory}: a pure cgroup2 root without the memory and cpu controllers;
 * on a v1 or hybrid node those tests are skipped with the reason, see CgroupV2KernelLimitsTest),
 * and only those tests are skipped; everywhere else a missing capability fails the test with the
 * preflight's reason.
 */
final class CgroupFixture {
  static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");

  final String top =
      "acceld-test-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
  final String parent = top + "/mesos";

  /** Fails with the preflight's reason, unless the CI declared it lacks {@code capability}. */
  static void require(Preflight preflight, String capability) {
    if (preflight.ok()) {
      return;
    }
    String lacks = System.getenv().getOrDefault("CONTAINMENT_TESTS_LACK", "");
    Assumptions.assumeFalse(
        Set.of(lacks.split(",")).contains(capability),
        "CONTAINMENT_TESTS_LACK names " + capability + ": " + preflight.message());
    fail(preflight.message());
  }

  /** Every hierarchy this machine mounts under the cgroup root, v1 controllers and cgroup2. */
  static List<Path> hierarchies() throws IOException {
    List<Path> all = new ArrayList<>();
    if (Files.isRegularFile(CGROUP_ROOT.resolve("cgroup.controllers"))) {
      all.add(CGROUP_ROOT);
      return all;
    }
    try (DirectoryStream<Path> mounts = Files.newDirectoryStream(CGROUP_ROOT)) {
      for (Path mount : mounts) {
        if (Files.isRegularFile(mount.resolve("cgroup.procs"))) {
          all.add(mount);
        }
      }
    }
    return all;
  }

  /** Destroys {@code fences}, then {@link #assertNothingLeftAndRemove}, even if one fails. */
  void destroyAndCheck(List<Fence> fences) throws IOException {
    try {
      for (Fence fence : fences) {
        fence.destroy();
      }
    } finally {
      assertNothingLeftAndRemove();
    }
  }

  /**
   * Asserts no container cgroup is left under the test parent, then removes the parent in every
   * hierarchy, killing leftovers first so a failing test cannot leak processes.
   */
  void assertNothingLeftAndRemove() throws IOException {
    List<String> left = new ArrayList<>();
    for (Path hierarchy : hierarchies()) {
      Path parentDir = hierarchy.resolve(parent);
      if (Files.isDirectory(parentDir)) {
        try (DirectoryStream<Path> children =
            Files.newDirectoryStream(parentDir, Files::isDirectory)) {
          for (Path child : children) {
            left.add(child.toString());
            killEverything(child);
          }
        }
      }
      CgroupFiles.removeTree(hierarchy.resolve(top), Duration.ofSeconds(5));
      assertThat(hierarchy.resolve(top)).doesNotExist();
    }
    assertThat(left).as("container cgroups left behind").isEmpty();
  }

  /** SIGKILLs whatever a test left in {@code cgroup} or below it, thawed first. */
  private static void killEverything(Path cgroup) throws IOException {
    for (Path dir : CgroupFiles.tree(cgroup)) {
      for (String control : List.of("freezer.state", "cgroup.freeze")) {
        if (Files.exists(dir.resolve(control))) {
          CgroupFiles.write(dir.resolve(control), control.equals("cgroup.freeze") ? "0" : "THAWED");
        }
      }
      for (int pid : CgroupFiles.pids(dir.resolve("cgroup.procs"))) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
    CgroupFiles.await(
        Duration.ofSeconds(5),
        () -> {
          for (Path dir : CgroupFiles.tree(cgroup)) {
            if (!CgroupFiles.pids(dir.resolve("cgroup.procs")).isEmpty()) {
              return false;
            }
          }
          return true;
        });
  }
}
