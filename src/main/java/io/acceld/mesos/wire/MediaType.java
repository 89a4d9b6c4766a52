package io.acceld.mesos.wire;

import java.util.Locale;
import java.util.Optional;

/**
 * The two media types the Mesos v1 HTTP APIs speak, as the exact strings clients compare against: a
 * response's {@code Content-Type} is one of these and nothing more (no {@code ; charset}).
 */
public enum MediaType {
  JSON("application/json"),
  PROTOBUF("application/x-protobuf");

  private final String value;

  MediaType(String value) {
    this.value = value;
  }

  /** The header value, exactly as Mesos writes and compares it. */
  public String value() {
    return value;
  }

  @Override
  public String toString() {
    return value;
  }

  /**
   * The media type a request's {@code Content-Type} names. As in Mesos the comparison is exact and
   * case-sensitive ({@code apache/mesos:src/master/http.cpp} compares the whole header value), so
   * {@code application/json; charset=utf-8} is unsupported (415) there and here.
   */
  public static Optional<MediaType> ofContentType(String contentType) {
    for (MediaType type : values()) {
      if (type.value.equals(contentType)) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }

  /**
   * What a SUBSCRIBE's event stream is encoded in: JSON whenever the {@code Accept} header allows
   * it, else protobuf, else nothing (406). No header accepts everything. Preference is Mesos's own
   * (JSON first), not the client's q-values: a q-value only decides whether a type is acceptable,
   * and {@code q=0} makes it not. For each type the most specific matching range counts ({@code
   * application/json} over {@code application/*} over {@code *}{@code /*}), as libprocess's {@code
   * Request::acceptsMediaType} does. Unlike Content-Type, range names are compared ignoring case,
   * which RFC 9110 asks for and costs no client anything.
   */
  public static Optional<MediaType> negotiate(Optional<String> accept) {
    if (accept.isEmpty()) {
      return Optional.of(JSON);
    }
    for (MediaType type : values()) {
      if (acceptable(accept.get(), type)) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }

  private static boolean acceptable(String accept, MediaType type) {
    String full = type.value;
    String anySubtype = full.substring(0, full.indexOf('/')) + "/*";
    // 0: no match yet; otherwise the specificity of the best match so far, 3 being exact.
    int bestSpecificity = 0;
    boolean bestAccepts = false;
    for (String element : accept.split(",")) {
      String[] parts = element.split(";");
      String range = parts[0].trim().toLowerCase(Locale.ROOT);
      int specificity =
          range.equals(full) ? 3 : range.equals(anySubtype) ? 2 : range.equals("*/*") ? 1 : 0;
      if (specificity > bestSpecificity) {
        bestSpecificity = specificity;
        bestAccepts = quality(parts) > 0;
      }
    }
    return bestAccepts;
  }

  /** The element's q parameter; 1 when absent, 0 (not acceptable) when it is not a number. */
  private static double quality(String[] parts) {
    for (int i = 1; i < parts.length; i++) {
      String parameter = parts[i].trim();
      int eq = parameter.indexOf('=');
      if (eq > 0 && parameter.substring(0, eq).trim().equalsIgnoreCase("q")) {
        try {
          double q = Double.parseDouble(parameter.substring(eq + 1).trim());
          return Double.isNaN(q) ? 0 : q;
        } catch (NumberFormatException e) {
          return 0;
        }
      }
    }
    return 1;
  }
}
