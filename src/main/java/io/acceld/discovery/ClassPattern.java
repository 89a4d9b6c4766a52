package io.acceld.discovery;

import java.util.Locale;

/**
 * A PCI class to match: {@code 0x03} matches a base class, {@code 0x0302} a base class and
 * subclass, {@code 0x030200} the full code including the programming interface.
 *
 * @param value the hex digits given
 * @param digits how many hex digits were given: 2, 4 or 6
 */
public record ClassPattern(int value, int digits) {
  public ClassPattern {
    if (digits != 2 && digits != 4 && digits != 6) {
      throw new IllegalArgumentException("a PCI class has 2, 4 or 6 hex digits");
    }
  }

  public static ClassPattern baseClass(int base) {
    return new ClassPattern(base, 2);
  }

  public static ClassPattern classAndSubclass(int value) {
    return new ClassPattern(value, 4);
  }

  /** Parses {@code 0x03}, {@code 0x0302} or {@code 0x030200}. */
  public static ClassPattern parse(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    String digits = t.startsWith("0x") ? t.substring(2) : t;
    if (!digits.matches("[0-9a-f]+")
        || (digits.length() != 2 && digits.length() != 4 && digits.length() != 6)) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a PCI class: use 2, 4 or 6 hex digits, like 0x03 or 0x0302");
    }
    return new ClassPattern(Integer.parseInt(digits, 16), digits.length());
  }

  public boolean matches(int classCode) {
    return (classCode >> (4 * (6 - digits))) == value;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "0x%0" + digits + "x", value);
  }
}
