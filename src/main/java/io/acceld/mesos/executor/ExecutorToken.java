package io.acceld.mesos.executor;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;

/**
 * One executor's secret for the executor API (see {@link io.acceld.mesos.http.ExecutorTokens}): 256
 * random bits, kept as its SHA-256 digest for comparison. {@link #toString()} does not print it, so
 * a log line that mentions one does not leak it; the value itself goes only into the executor's
 * environment and its owner-only container record (a re-attached executor keeps using the token it
 * was spawned with).
 */
final class ExecutorToken {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String value;
  private final byte[] digest;

  private ExecutorToken(String value) {
    this.value = Objects.requireNonNull(value, "value");
    this.digest = digest(value);
  }

  static ExecutorToken generate() {
    byte[] bits = new byte[32];
    RANDOM.nextBytes(bits);
    return new ExecutorToken(Base64.getUrlEncoder().withoutPadding().encodeToString(bits));
  }

  /** A token read back from a container record. */
  static ExecutorToken of(String value) {
    if (value.isBlank()) {
      throw new IllegalArgumentException("an executor token cannot be blank");
    }
    return new ExecutorToken(value);
  }

  /** The secret, for the executor's environment and its record only. */
  String value() {
    return value;
  }

  /** Whether {@code presented} (a digest from {@link #digest(String)}) is this token's. */
  boolean matches(byte[] presented) {
    return MessageDigest.isEqual(digest, presented);
  }

  static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  @Override
  public String toString() {
    return "ExecutorToken[redacted]";
  }
}
