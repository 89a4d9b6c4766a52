package io.acceld.testing.kubelet;

import io.grpc.Status;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The few Go formatting verbs the kubelet's error texts use, so the double's messages match the
 * real ones character for character.
 */
final class GoText {
  private GoText() {}

  /** Go's {@code %q} of a string ({@code strconv.Quote}) for the characters tests use. */
  static String quote(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\x%02x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /** Go's {@code %q} of a {@code []string}: {@code ["a" "b"]}. */
  static String quoteList(List<String> values) {
    return values.stream().map(GoText::quote).collect(Collectors.joining(" ", "[", "]"));
  }

  /** Go's {@code %v} of a {@code []string}: {@code [a b]}. */
  static String list(List<String> values) {
    return values.stream().collect(Collectors.joining(" ", "[", "]"));
  }

  /**
   * Go's {@code %v} of a grpc-go status error: {@code rpc error: code = Unavailable desc = ...}.
   * Anything that is not a gRPC status prints as its {@code toString}.
   */
  static String rpcError(Throwable t) {
    Status status = Status.fromThrowable(t);
    if (status.getCode() == Status.Code.UNKNOWN && status.getCause() == t) {
      return t.toString();
    }
    String desc = status.getDescription() == null ? "" : status.getDescription();
    return "rpc error: code = " + code(status.getCode()) + " desc = " + desc;
  }

  /** grpc-go's {@code codes.Code.String()}: CamelCase, and "Canceled" with one L. */
  static String code(Status.Code code) {
    if (code == Status.Code.OK) {
      return "OK";
    }
    if (code == Status.Code.CANCELLED) {
      return "Canceled";
    }
    StringBuilder out = new StringBuilder();
    for (String word : code.name().split("_")) {
      out.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
    }
    return out.toString();
  }
}
