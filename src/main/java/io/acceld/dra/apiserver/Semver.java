package io.acceld.dra.apiserver;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A driver or compute-capability version as the semantic version DRA's {@code version} attributes
 * must be: {@code MAJOR.MINOR.PATCH} without leading zeros, so NVIDIA's {@code 580.95.05} is {@code
 * 580.95.5} and {@code 9.0} is {@code 9.0.0} (as NVIDIA's DRA driver publishes them).
 */
public final class Semver {
  private static final Pattern NUMBERS = Pattern.compile("[0-9]{1,9}(\\.[0-9]{1,9}){0,2}");

  private Semver() {}

  /** {@code version} as a semantic version; empty when it is not one to three numbers. */
  public static Optional<String> of(String version) {
    String v = version.strip();
    if (!NUMBERS.matcher(v).matches()) {
      return Optional.empty();
    }
    String[] parts = v.split("\\.");
    long[] numbers = new long[3];
    for (int i = 0; i < parts.length; i++) {
      numbers[i] = Long.parseLong(parts[i]);
    }
    return Optional.of(numbers[0] + "." + numbers[1] + "." + numbers[2]);
  }
}
