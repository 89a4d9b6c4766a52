package io.acceld.mesos.containment;

import io.acceld.config.MesosIsolation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;

/**
 * A file tree shaped like a cgroup2 root with the memory and cpu controllers, and a containment on
 * it with the parent {@code acceld/mesos}: where a node has no such root (every hybrid one), the v2
 * limit writes are checked against files, not against the kernel.
 */
final class V2FileTree {
  private V2FileTree() {}

  static Containment containment(Path root) throws IOException {
    Files.writeString(root.resolve("cgroup.controllers"), "cpu memory pids\n");
    for (Path dir : List.of(root, root.resolve("acceld"), root.resolve("acceld/mesos"))) {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("cgroup.subtree_control"), "");
    }
    return Containment.create(
        new ContainmentSettings(
            EnumSet.of(MesosIsolation.MEMORY, MesosIsolation.CPU),
            false,
            true,
            root,
            root,
            ContainmentSettings.DEFAULT_SETPRIV,
            "acceld/mesos"));
  }
}
