package io.acceld.nvml;

/**
 * The {@code nvmlDeviceGetFieldValues} fields acceld reads: those of dcgm-exporter's set that have
 * no function of their own. IDs are nvml.h's {@code NVML_FI_*} numbers, which NVIDIA only appends
 * to.
 */
public enum NvmlField {
  /** {@code NVML_FI_DEV_MEMORY_TEMP}, °C; NOT_SUPPORTED on many boards. */
  MEMORY_TEMP(82),
  /** {@code NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL}: flow-control CRC errors, all links. */
  NVLINK_CRC_FLIT_ERRORS(38),
  /** {@code NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL}: data CRC errors, all links. */
  NVLINK_CRC_DATA_ERRORS(45),
  /** {@code NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL}: retries, all links. */
  NVLINK_REPLAY_ERRORS(52),
  /** {@code NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL}: link recoveries, all links. */
  NVLINK_RECOVERY_ERRORS(59);

  final int id;

  NvmlField(int id) {
    this.id = id;
  }
}
