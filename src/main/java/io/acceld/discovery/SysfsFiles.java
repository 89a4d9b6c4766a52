package io.acceld.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Reads small sysfs attribute files, which end in a newline and hold hex or decimal numbers. */
final class SysfsFiles {
  private SysfsFiles() {}

  static String string(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.US_ASCII).strip();
  }

  static Optional<String> optionalString(Path file) {
    try {
      return Optional.of(string(file));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** A {@code 0x}-prefixed hex attribute such as {@code vendor} or {@code class}. */
  static int hex(Path file) throws IOException {
    String value = string(file);
    try {
      return parseHex(value);
    } catch (NumberFormatException e) {
      throw new IOException(file + " holds '" + value + "', not a hex number", e);
    }
  }

  static Optional<Integer> optionalHex(Path file) {
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

  static Optional<Integer> optionalInt(Path file) {
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
