package io.acceld.metrics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The token {@code /metrics} and {@code /devices} require ({@code --metrics-auth bearer:FILE}),
 * compared in constant time. Prometheus sends it with {@code authorization: {credentials_file:
 * ...}} . The file must be readable by its owner only: a token others can read protects nothing.
 */
final class BearerToken {
  private static final Set<PosixFilePermission> OTHERS =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.GROUP_EXECUTE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_EXECUTE);

  private final byte[] expected;

  private BearerToken(byte[] expected) {
    this.expected = expected;
  }

  /**
   * Parses {@code --metrics-auth}: empty for none, else {@code bearer:FILE}.
   *
   * @throws IllegalArgumentException saying what is wrong with the value or the file
   */
  static Optional<BearerToken> fromSetting(String value) {
    String v = value.strip();
    if (v.isEmpty()) {
      return Optional.empty();
    }
    if (!v.startsWith("bearer:") || v.length() == "bearer:".length()) {
      throw new IllegalArgumentException(
          "--metrics-auth expects bearer:FILE (a file holding the token), got '" + v + "'");
    }
    return Optional.of(load(Path.of(v.substring("bearer:".length()))));
  }

  static BearerToken load(Path file) {
    try {
      Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
      if (mode.stream().anyMatch(OTHERS::contains)) {
        throw new IllegalArgumentException(
            "--metrics-auth: " + file + " is readable or writable by other users; chmod 0600 it");
      }
      String token = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (token.isEmpty() || token.contains("\n")) {
        throw new IllegalArgumentException(
            "--metrics-auth: " + file + " must hold one token on one line");
      }
      return new BearerToken(token.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalArgumentException("--metrics-auth: cannot read " + file + ": " + e, e);
    }
  }

  /** The {@code Authorization} header value a client sends to present this token. */
  String authorization() {
    return "Bearer " + new String(expected, StandardCharsets.UTF_8);
  }

  /** Whether an {@code Authorization} header carries this token. */
  boolean admits(Optional<String> authorization) {
    if (authorization.isEmpty() || !authorization.get().regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] offered = authorization.get().substring(7).strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(expected, offered);
  }
}
