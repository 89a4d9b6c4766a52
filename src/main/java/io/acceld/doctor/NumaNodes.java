package io.acceld.doctor;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * How many NUMA nodes the kernel lists under {@code <sysfs-root>/devices/system/node}. A device
 * whose {@code numa_node} is -1 is normal on a one-node machine and a firmware gap on a bigger one.
 */
final class NumaNodes {
  private NumaNodes() {}

  /** The count, or empty when the directory is absent or unreadable. */
  static OptionalInt count(Path sysfsRoot) {
    Path dir = sysfsRoot.resolve("devices/system/node");
    if (!Files.isDirectory(dir)) {
      return OptionalInt.empty();
    }
    int count = 0;
    try (DirectoryStream<Path> nodes = Files.newDirectoryStream(dir, "node[0-9]*")) {
      for (Path ignored : nodes) {
        count++;
      }
    } catch (IOException e) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(count);
  }
}
