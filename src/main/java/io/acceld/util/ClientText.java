package io.acceld.util;

/**
 * Text a client sent (a device ID, a name), made safe to put in an error or a log line: control and
 * non-ASCII characters escaped as {@code \\uXXXX} (so a newline cannot forge a log line), and cut
 * to a length a person can read (so a megabyte ID cannot fill a log), saying how much was cut.
 */
public final class ClientText {
  /** What an error or log line shows of one client string. */
  public static final int MAX_SHOWN = 80;

  private ClientText() {}

  /**
   * {@code value} escaped and cut as {@link #quote} does, without the quotes: for text that comes
   * from hardware or a peer but reads as a plain word where it is shown, such as a driver version.
   */
  public static String escape(String value) {
    String quoted = quote(value);
    if (value == null) {
      return quoted;
    }
    int close = quoted.lastIndexOf('"');
    return quoted.substring(1, close) + quoted.substring(close + 1);
  }

  /** {@code value} quoted, escaped and cut to {@link #MAX_SHOWN} characters. */
  public static String quote(String value) {
    return quote(value, MAX_SHOWN);
  }

  /**
   * {@code value} quoted, escaped and cut to {@code max} characters: for a peer's sentence that is
   * worth more than a word, such as an API server's error message.
   */
  public static String quote(String value, int max) {
    if (value == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder(Math.min(value.length(), max) + 16).append('"');
    int shown = Math.min(value.length(), max);
    for (int i = 0; i < shown; i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
    if (value.length() > shown) {
      out.append("... (").append(value.length()).append(" characters)");
    }
    return out.toString();
  }
}
