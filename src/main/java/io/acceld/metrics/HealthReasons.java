package io.acceld.metrics;

import io.acceld.inventory.Device;
import io.acceld.inventory.HealthProblem;

/**
 * The {@code reason} label of a device: the kind of its headline problem as a short, fixed value.
 * The problem's text can hold paths, addresses and numbers; as a label it would create a new series
 * for every variant, so metrics show the kind and the full text stays in logs and the {@code
 * devices} listing. The values are part of the metrics contract (alerts match on them), which is
 * why they are spelled here rather than derived from the enum's names.
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

  /** {@code ""} for a healthy device, else the label of its first problem. */
  static String label(Device device) {
    if (device.isHealthy()) {
      return HEALTHY;
    }
    return label(device.problems().get(0).kind());
  }

  static String label(HealthProblem.Kind kind) {
    return switch (kind) {
      case GPU_LOST -> GPU_LOST;
      case XID -> XID;
      case DEVICE_NODE_MISSING -> DEVICE_NODE_MISSING;
      case ECC -> ECC;
      case RETIRED_PAGES -> MEMORY_RETIREMENT;
      case NVML_ERROR -> NVML;
      case OTHER -> OTHER;
      case UNKNOWN -> UNKNOWN;
    };
  }
}
