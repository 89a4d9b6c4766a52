package io.acceld.metrics;

import java.util.Locale;

/** PCI addresses in the form NVML and dcgm-exporter print them. */
final class PciBusIds {
  private PciBusIds() {}

  /**
   * {@code 0000:3b:00.0} (sysfs) → {@code 00000000:3B:00.0} (NVML: 8-digit domain, upper case).
   * Already-NVML addresses come back upper-cased; anything else is returned upper-cased as is.
   */
  static String nvmlForm(String address) {
    String upper = address.toUpperCase(Locale.ROOT);
    int colon = upper.indexOf(':');
    if (colon < 0 || colon > 8) {
      return upper;
    }
    return "0".repeat(8 - colon) + upper;
  }
}
