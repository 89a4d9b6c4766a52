package io.acceld.metrics;

import io.acceld.inventory.Device;
import java.util.Locale;

/**
 * Turns a device's free-text health reason into a short, fixed label value. The text can hold
 * paths, addresses and numbers; as a label it would create a new series for every variant, so
 * metrics get a category from a small closed set and the full text stays in logs and the {@code
 * devices} listing.
 */
final class HealthReasons {
  static final String HEALTHY = "";
  static final String GPU_LOST = "gpu_lost";
  static final String XID = "xid";
  static final String DEVICE_NODE_MISSING = "device_node_missing";
  static final String ECC = "ecc_error";
  static final String MEMORY_RETIREMENT = "memory_retirement";
  static final String NVML = "nvml_error";
  static final String UNKNOWN = "unknown";
  static final String OTHER = "other";

  private HealthReasons() {}

  /** {@code ""} for a healthy device, else the category of its first listed problem. */
  static String label(Device device) {
    if (device.isHealthy()) {
      return HEALTHY;
    }
    String reason = device.healthReason().orElse("").trim();
    if (reason.isEmpty()) {
      return UNKNOWN;
    }
    // The scanner joins several problems with "; ": the first one is the headline.
    int end = reason.indexOf(';');
    String first = (end < 0 ? reason : reason.substring(0, end)).toLowerCase(Locale.ROOT);
    if (first.contains("gpu_is_lost") || first.contains("lost") || first.contains("fallen off")) {
      return GPU_LOST;
    }
    if (first.contains("xid")) {
      return XID;
    }
    if (first.contains("device node") && first.contains("missing")) {
      return DEVICE_NODE_MISSING;
    }
    if (first.contains("ecc") || first.contains("double-bit") || first.contains("dbe")) {
      return ECC;
    }
    if (first.contains("retired") || first.contains("remap")) {
      return MEMORY_RETIREMENT;
    }
    if (first.contains("nvml")) {
      return NVML;
    }
    return OTHER;
  }
}
