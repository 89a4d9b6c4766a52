package io.acceld.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * Reads one device's small sysfs attribute files, which end in a newline and hold hex or decimal
 * numbers, remembering which file it is reading so that a read that blocks can be named ({@link
 * DeadlineReads}). A file already known to block is not read again: a required one fails, an
 * optional one reads as absent.
 */
final class SysfsFiles {
  private final Set<Path> wedged;
  private volatile Path reading;

  /**
   * @param wedged files whose earlier read has not returned yet
   */
  SysfsFiles(Set<Path> wedged) {
    this.wedged = wedged;
  }

  /** The file being read right now, if any. */
  Optional<Path> reading() {
    return Optional.ofNullable(reading);
  }

  String string(Path file) throws IOException {
    if (wedged.contains(file)) {
      throw new DeadlineReads.Blocked(file);
    }
    reading = file;
    try {
      return Files.readString(file, StandardCharsets.US_ASCII).strip();
    } finally {
      reading = null;
      wedged.remove(file); // a read that blocked and returned at last: readable again
    }
  }

  Optional<String> optionalString(Path file) {
    try {
      return Optional.of(string(file));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** A {@code 0x}-prefixed hex attribute such as {@code vendor} or {@code class}. */
  int hex(Path file) throws IOException {
    String value = string(file);
    try {
      return parseHex(value);
    } catch (NumberFormatException e) {
      throw new IOException(file + " holds '" + value + "', not a hex number", e);
    }
  }

  Optional<Integer> optionalHex(Path file) {
    return optionalString(file)
        .flatMap(
            s -> {
              try {
                return Optional.of(parseHex(s));
              } catch (NumberFormatException e) {
                return Optional.empty();
              }
            });
  }

  Optional<Integer> optionalInt(Path file) {
    return optionalString(file)
        .flatMap(
            s -> {
              try {
                return Optional.of(Integer.parseInt(s));
              } catch (NumberFormatException e) {
                return Optional.empty();
              }
            });
  }

  static int parseHex(String value) {
    String digits = value.startsWith("0x") || value.startsWith("0X") ? value.substring(2) : value;
    return Integer.parseUnsignedInt(digits, 16);
  }
}
