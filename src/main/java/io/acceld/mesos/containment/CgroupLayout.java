package io.acceld.mesos.containment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** How cgroups are mounted under {@code --cgroup-root}, detected once at start. */
public sealed interface CgroupLayout {
  /** The v1 controllers containment uses; freezer is always needed, to kill a container. */
  List<String> V1_CONTROLLERS = List.of("freezer", "devices", "memory", "cpu");

  Path root();

  /**
   * cgroup v2 alone: {@code cgroup.controllers} at the root, one directory per container.
   *
   * @param root the cgroup2 mount
   */
  record Unified(Path root) implements CgroupLayout {}

  /**
   * cgroup v1, one mount per controller, and on a hybrid system a cgroup2 mount at {@code unified/}
   * with no controllers of its own.
   *
   * @param controllers each v1 controller found, by name, to its mount directory
   */
  record Legacy(Path root, Map<String, Path> controllers, Optional<Path> unified)
      implements CgroupLayout {
    public Legacy {
      controllers = Map.copyOf(controllers);
    }
  }

  /**
   * Looks at the mounts under {@code root}: v2 has {@code cgroup.controllers} at the root; v1 has a
   * directory per controller ({@code cpu} may be a symlink to {@code cpu,cpuacct}), each with a
   * {@code cgroup.procs}; hybrid adds {@code unified/}.
   *
   * @throws IOException when neither is found there
   */
  static CgroupLayout detect(Path root) throws IOException {
    if (Files.isRegularFile(root.resolve("cgroup.controllers"))) {
      return new Unified(root);
    }
    Map<String, Path> controllers = new LinkedHashMap<>();
    for (String name : V1_CONTROLLERS) {
      Path dir = root.resolve(name);
      if (Files.isRegularFile(dir.resolve("cgroup.procs"))
          && !Files.exists(dir.resolve("cgroup.controllers"))) {
        controllers.put(name, dir);
      }
    }
    Path unified = root.resolve("unified");
    Optional<Path> hybrid =
        Files.isRegularFile(unified.resolve("cgroup.controllers"))
            ? Optional.of(unified)
            : Optional.empty();
    if (controllers.isEmpty()) {
      throw new IOException(
          "no cgroup hierarchy under --cgroup-root "
              + root
              + ": neither cgroup.controllers (v2) nor v1 controller directories (freezer, devices,"
              + " memory, cpu)");
    }
    return new Legacy(root, controllers, hybrid);
  }
}
