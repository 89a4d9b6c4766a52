package io.acceld.testing;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Removes the Mesos task cgroups a test left under {@code <cgroup-root>/<hierarchy>/}{@link
 * #PARENT}, or {@code <cgroup-root>/}{@link #PARENT} on pure cgroup v2 (registered for every test;
 * it runs after the test's own clean-up, which kills what the test left running, and an rmdir
 * removes only an empty cgroup, so a busy one stays and is named). Tests that stop a bridge leave
 * its tasks running on purpose, as an agent restart does; their processes are killed by the test,
 * but nothing else would remove the cgroups. Tests of containment assert that the agent itself
 * removed them ({@link #under}) before this runs.
 */
public final class CgroupLeftovers implements AfterEachCallback, AfterAllCallback {
  static final Path ROOT = Path.of("/sys/fs/cgroup");

  /**
   * The {@code --mesos-cgroup-parent} of every agent this test JVM starts: its own, so that two
   * test JVMs (the suite runs its classes in parallel forks) never take each other's task cgroups
   * for ones to remove on recovery, and never touch a real agent's {@code acceld/mesos}.
   */
  public static final String PARENT = "acceld-test-" + ProcessHandle.current().pid() + "/mesos";

  /**
   * The parent of an agent a test starts while another one runs on {@link #PARENT}: an agent holds
   * its parent while its Mesos bridge runs, and a second one on it is refused.
   */
  public static final String SECOND_PARENT =
      "acceld-test-" + ProcessHandle.current().pid() + "/mesos-second";

  @Override
  public void afterEach(ExtensionContext context) {
    removeAll();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    removeAll();
    // and the parents themselves, then the directory above them; a later test's agent makes them
    // again
    List<Path> dirs = new ArrayList<>(parents());
    parents().stream().map(Path::getParent).distinct().forEach(dirs::add);
    for (Path dir : dirs) {
      try {
        Files.deleteIfExists(dir);
      } catch (IOException e) {
        System.err.println("CgroupLeftovers: cannot remove " + dir + ": " + e);
      }
    }
  }

  /** The container ids that have a cgroup under the agent's parent, in any hierarchy. */
  public static List<String> under() {
    TreeSet<String> ids = new TreeSet<>();
    for (Path parent : parents()) {
      try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, Files::isDirectory)) {
        dirs.forEach(d -> ids.add(d.getFileName().toString()));
      } catch (IOException e) {
        // no such hierarchy or parent
      }
    }
    return List.copyOf(ids);
  }

  /**
   * The {@code cgroup.procs} of container {@code id}'s cgroup that lists every process it holds:
   * the freezer's on v1, the one cgroup's on pure v2.
   */
  public static Path procs(String id) {
    Path hierarchy = pureV2() ? ROOT : ROOT.resolve("freezer");
    return hierarchy.resolve(PARENT).resolve(id).resolve("cgroup.procs");
  }

  /**
   * Container {@code id}'s cgroup directories: one per controller it is fenced by on v1 (freezer,
   * memory, cpu, devices), the one cgroup on pure v2.
   */
  public static List<Path> cgroups(String id) {
    if (pureV2()) {
      return List.of(ROOT.resolve(PARENT).resolve(id));
    }
    return java.util.stream.Stream.of("freezer", "memory", "cpu", "devices")
        .map(c -> ROOT.resolve(c).resolve(PARENT).resolve(id))
        .toList();
  }

  /**
   * For a test that reads v1 control files ({@code memory.limit_in_bytes}, {@code cpu.shares},
   * {@code devices.list}): fails on a pure v2 node, naming why, unless {@code
   * CONTAINMENT_TESTS_LACK} names {@code cgroup-v1} (then it is skipped with the reason). The v2
   * counterparts are CgroupV2KernelLimitsTest and CgroupV2ContainmentTest.
   */
  public static void requireV1Files() {
    if (!pureV2()) {
      return;
    }
    String why = ROOT + " is a pure cgroup v2 root: this test reads v1 control files";
    String lacks = System.getenv().getOrDefault("CONTAINMENT_TESTS_LACK", "");
    org.junit.jupiter.api.Assumptions.assumeFalse(
        java.util.Set.of(lacks.split(",")).contains("cgroup-v1"),
        "CONTAINMENT_TESTS_LACK names cgroup-v1: " + why);
    throw new AssertionError(why);
  }

  /** The agent's cgroup parent in the hierarchy that lists every process: freezer, or v2's. */
  public static Path processParent() {
    return (pureV2() ? ROOT : ROOT.resolve("freezer")).resolve(PARENT);
  }

  /** Whether the root is a cgroup2 mount itself, not a directory of v1 (and hybrid) mounts. */
  private static boolean pureV2() {
    return Files.isRegularFile(ROOT.resolve("cgroup.controllers"));
  }

  private static List<Path> parents() {
    if (pureV2()) {
      // the directories under a cgroup2 root are cgroups, not hierarchies
      return List.of(ROOT.resolve(PARENT), ROOT.resolve(SECOND_PARENT));
    }
    List<Path> parents = new ArrayList<>();
    try (DirectoryStream<Path> hierarchies = Files.newDirectoryStream(ROOT, Files::isDirectory)) {
      hierarchies.forEach(
          h -> {
            parents.add(h.resolve(PARENT));
            parents.add(h.resolve(SECOND_PARENT));
          });
    } catch (IOException e) {
      return List.of();
    }
    return parents;
  }

  private static void removeAll() {
    for (Path parent : parents()) {
      try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, Files::isDirectory)) {
        for (Path dir : dirs) {
          try {
            Files.delete(dir); // rmdir: only an empty cgroup goes, a busy one stays and shows
          } catch (IOException e) {
            System.err.println("CgroupLeftovers: cannot remove " + dir + ": " + e);
          }
        }
      } catch (IOException e) {
        // no such hierarchy or parent
      }
    }
  }
}
