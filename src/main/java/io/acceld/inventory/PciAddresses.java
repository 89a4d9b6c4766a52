package io.acceld.inventory;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Normalises PCI addresses so that NVML's {@code 00000000:3B:00.0} and sysfs's {@code 0000:3b:00.0}
 * compare equal. The normal form is sysfs's: 4-digit domain, lower case. {@link #nvmlForm} gives
 * the form NVML and dcgm-exporter print.
 */
public final class PciAddresses {
  private static final Pattern ADDRESS =
      Pattern.compile("^(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\\.([0-7])$");

  private PciAddresses() {}

  /** The normal form, or empty if {@code raw} is not a PCI address. */
  public static Optional<String> normalise(String raw) {
    if (raw == null) {
      return Optional.empty();
    }
    Matcher m = ADDRESS.matcher(raw.strip());
    if (!m.matches()) {
      return Optional.empty();
    }
    long domain = m.group(1) == null ? 0 : Long.parseLong(m.group(1), 16);
    if (domain > 0xffff) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            Locale.ROOT,
            "%04x:%02x:%02x.%s",
            domain,
            Integer.parseInt(m.group(2), 16),
            Integer.parseInt(m.group(3), 16),
            m.group(4)));
  }

  /**
   * {@code 0000:3b:00.0} (sysfs) → {@code 00000000:3B:00.0} (NVML: 8-digit domain, upper case).
   * Already-NVML addresses come back upper-cased; anything else is returned upper-cased as is.
   */
  public static String nvmlForm(String address) {
    String upper = address.toUpperCase(Locale.ROOT);
    int colon = upper.indexOf(':');
    if (colon < 0 || colon > 8) {
      return upper;
    }
    return "0".repeat(8 - colon) + upper;
  }
}
