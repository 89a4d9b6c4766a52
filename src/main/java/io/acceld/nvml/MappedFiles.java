package io.acceld.nvml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Which file a code address of this process was mapped from, by {@code /proc/self/maps}. The
 * dynamic loader searches its cache and paths for a bare soname, so the name given to it does not
 * say which file it took; the mapping does. Always this process's own procfs, never {@code
 * --proc-root}: the question is about this JVM, not about the node.
 */
final class MappedFiles {
  private static final Path MAPS = Path.of("/proc/self/maps");

  private MappedFiles() {}

  /** The file mapped at {@code address}, or empty when no file mapping holds it. */
  static Optional<Path> holding(long address) {
    try {
      for (String line : Files.readAllLines(MAPS, StandardCharsets.UTF_8)) {
        Optional<Path> file = fileOf(line, address);
        if (file.isPresent()) {
          return file;
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux, or procfs unavailable: the caller reports the name it loaded instead.
    }
    return Optional.empty();
  }

  /** {@code start-end perms offset dev inode path}: the path when {@code address} is in range. */
  static Optional<Path> fileOf(String line, long address) {
    String[] fields = line.strip().split("\\s+", 6);
    if (fields.length < 6 || !fields[5].startsWith("/")) {
      return Optional.empty();
    }
    String[] range = fields[0].split("-");
    if (range.length != 2) {
      return Optional.empty();
    }
    long start = Long.parseUnsignedLong(range[0], 16);
    long end = Long.parseUnsignedLong(range[1], 16);
    boolean inside =
        Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0;
    return inside ? Optional.of(Path.of(fields[5].replace(" (deleted)", ""))) : Optional.empty();
  }
}
