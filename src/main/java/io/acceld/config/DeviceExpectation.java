package io.acceld.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many devices of one resource the operator expects on this node: exactly {@code count} ({@code
 * nvidia.com/gpu=8}) or at least {@code count} ({@code nvidia.com/gpu>=1}). A node that falls short
 * is not ready, so a broken driver shows in {@code kubectl get pods} instead of as a green node
 * with no GPUs.
 *
 * @param resource the resource name as the kubelet sees it
 * @param atLeast true for {@code >=}, false for an exact count
 * @param count how many devices
 */
public record DeviceExpectation(String resource, boolean atLeast, int count) {
  private static final Pattern FORM = Pattern.compile("^([^=<>\\s]+)\\s*(>=|=)\\s*(\\d+)$");

  public DeviceExpectation {
    Objects.requireNonNull(resource);
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative: " + count);
    }
  }

  /** Whether finding {@code found} devices of {@link #resource} meets this expectation. */
  public boolean metBy(int found) {
    return atLeast ? found >= count : found == count;
  }

  /** The operator's spelling, such as {@code nvidia.com/gpu>=1}. */
  @Override
  public String toString() {
    return resource + (atLeast ? ">=" : "=") + count;
  }

  /** A comma-separated list such as {@code nvidia.com/gpu=8,amd.com/gpu>=1}; empty for none. */
  public static ValueParser<List<DeviceExpectation>> listParser() {
    return raw -> {
      List<DeviceExpectation> all = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (String part : raw.split(",")) {
        if (part.isBlank()) {
          continue;
        }
        Matcher m = FORM.matcher(part.strip());
        if (!m.matches()) {
          throw new IllegalArgumentException(
              "expects RESOURCE=COUNT or RESOURCE>=COUNT, like nvidia.com/gpu=8 or"
                  + " nvidia.com/gpu>=1, got '"
                  + part.strip()
                  + "'");
        }
        if (!seen.add(m.group(1))) {
          throw new IllegalArgumentException("names " + m.group(1) + " more than once");
        }
        int count = Parsers.integer(0, 1_000_000).parse(m.group(3));
        all.add(new DeviceExpectation(m.group(1), m.group(2).equals(">="), count));
      }
      return List.copyOf(all);
    };
  }
}
