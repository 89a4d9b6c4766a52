package io.acceld.config;

import io.acceld.util.ClientText;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The value types settings use. Each error message says what a valid value looks like. */
public final class Parsers {
  private static final Pattern DURATION = Pattern.compile("^(\\d+)(ms|s|m|h)$");
  private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}");

  /**
   * The longest duration any setting takes: a year. Longer ones are typos, and would overflow the
   * nanosecond arithmetic of the timers they feed.
   */
  static final Duration MAX_DURATION = Duration.ofDays(365);

  private Parsers() {}

  public static ValueParser<Path> path() {
    return raw -> {
      noControlCharacters(raw);
      if (raw.isBlank()) {
        throw new IllegalArgumentException("expects a path, got an empty value");
      }
      try {
        return Path.of(raw).toAbsolutePath().normalize();
      } catch (InvalidPathException e) {
        throw new IllegalArgumentException("'" + raw + "' is not a valid path");
      }
    };
  }

  /**
   * A relative path of plain names ({@code acceld/mesos}): no leading slash, no {@code .} or {@code
   * ..}, no empty segment, so it cannot reach outside the directory it is resolved against.
   */
  public static ValueParser<String> relativeNames() {
    return raw -> {
      noControlCharacters(raw);
      for (String segment : raw.split("/", -1)) {
        if (!PLAIN_NAME.matcher(segment).matches()) {
          throw new IllegalArgumentException(
              "expects a relative path of plain names like acceld/mesos, got "
                  + ClientText.quote(raw));
        }
      }
      return raw;
    };
  }

  /** Any text without control characters (a NUL would cut a C string, a newline forge a log). */
  public static ValueParser<String> string() {
    return raw -> {
      noControlCharacters(raw);
      return raw;
    };
  }

  private static void noControlCharacters(String raw) {
    for (int i = 0; i < raw.length(); i++) {
      if (Character.isISOControl(raw.charAt(i))) {
        throw new IllegalArgumentException(
            "contains a control character ("
                + String.format("\\u%04x", (int) raw.charAt(i))
                + ") at position "
                + (i + 1)
                + ": "
                + ClientText.quote(raw));
      }
    }
  }

  public static ValueParser<Boolean> bool() {
    return raw ->
        switch (raw.strip().toLowerCase(Locale.ROOT)) {
          case "true" -> true;
          case "false" -> false;
          default -> throw new IllegalArgumentException("expects true or false, got '" + raw + "'");
        };
  }

  public static ValueParser<Integer> integer(int min, int max) {
    return raw -> {
      int value;
      try {
        value = Integer.parseInt(raw.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("expects a whole number, got '" + raw + "'");
      }
      if (value < min || value > max) {
        throw new IllegalArgumentException(
            "expects a number from " + min + " to " + max + ", got " + value);
      }
      return value;
    };
  }

  /** One of a fixed set of words, matched exactly. */
  public static ValueParser<String> choice(String... choices) {
    return choice(List.of(choices), word -> word);
  }

  /**
   * One of {@code values}, each spelt as {@code word} gives it (matched exactly), so a setting
   * holds the typed value and its users never parse the word again.
   */
  public static <T> ValueParser<T> choice(List<T> values, Function<T, String> word) {
    Map<String, T> allowed = new LinkedHashMap<>();
    values.forEach(v -> allowed.put(word.apply(v), v));
    return raw -> {
      T value = allowed.get(raw.strip());
      if (value == null) {
        throw new IllegalArgumentException(
            "expects one of " + String.join(", ", allowed.keySet()) + ", got '" + raw + "'");
      }
      return value;
    };
  }

  /** {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}; or {@code 0} for none. */
  public static ValueParser<Duration> duration() {
    return raw -> {
      String t = raw.strip();
      if (t.equals("0")) {
        return Duration.ZERO;
      }
      Matcher m = DURATION.matcher(t);
      if (!m.matches()) {
        throw new IllegalArgumentException(
            "expects a duration like 500ms, 10s, 5m or 1h, got '" + raw + "'");
      }
      Duration value;
      try {
        long n = Long.parseLong(m.group(1));
        value =
            switch (m.group(2)) {
              case "ms" -> Duration.ofMillis(n);
              case "s" -> Duration.ofSeconds(n);
              case "m" -> Duration.ofMinutes(n);
              default -> Duration.ofHours(n);
            };
      } catch (NumberFormatException | ArithmeticException e) {
        value = null; // more than a long or a Duration holds: too long either way
      }
      if (value == null || value.compareTo(MAX_DURATION) > 0) {
        throw new IllegalArgumentException(
            ClientText.quote(t) + " is too long; durations go up to 8760h (a year)");
      }
      return value;
    };
  }

  /** A duration, or {@code forever} for none: empty means "never ends". */
  public static ValueParser<Optional<Duration>> durationOrForever() {
    return raw ->
        raw.strip().equals("forever") ? Optional.empty() : Optional.of(duration().parse(raw));
  }

  /** {@code HOST:PORT}, such as {@code 0.0.0.0:9445} or {@code [::1]:9445}. */
  public static ValueParser<HostPort> hostPort() {
    return raw -> {
      String t = raw.strip();
      int colon = t.lastIndexOf(':');
      if (colon <= 0 || colon == t.length() - 1) {
        throw new IllegalArgumentException(
            "expects HOST:PORT, like 0.0.0.0:9445, got '" + raw + "'");
      }
      String host = t.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port = integer(0, 65535).parse(t.substring(colon + 1));
      return new HostPort(host, port);
    };
  }

  /** {@code inner}'s value, or empty for an empty string: a feature that is off unless given. */
  public static <T> ValueParser<Optional<T>> optional(ValueParser<T> inner) {
    return raw -> raw.isBlank() ? Optional.empty() : Optional.of(inner.parse(raw));
  }

  /** A comma-separated list of whole numbers, such as {@code 13,31,43}; empty for none. */
  public static ValueParser<List<Integer>> integerList() {
    return raw -> {
      List<Integer> values = new ArrayList<>();
      for (String part : raw.split(",")) {
        if (!part.isBlank()) {
          values.add(integer(0, Integer.MAX_VALUE).parse(part));
        }
      }
      return List.copyOf(values);
    };
  }

  /** A 16-bit hex ID such as a PCI vendor: {@code 0x10de} or {@code 10de}. */
  public static ValueParser<Integer> hexId() {
    return raw -> {
      String t = raw.strip().toLowerCase(Locale.ROOT);
      String digits = t.startsWith("0x") ? t.substring(2) : t;
      if (!digits.matches("[0-9a-f]{1,4}")) {
        throw new IllegalArgumentException("expects a hex ID like 0x10de, got '" + raw + "'");
      }
      return Integer.parseInt(digits, 16);
    };
  }
}
