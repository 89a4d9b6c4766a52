package io.acceld.nvml;

/** {@code nvmlEccCounterType_t}. */
public enum NvmlEccCounter {
  /** Since the driver was loaded. */
  VOLATILE(0),
  /** Over the GPU's lifetime. */
  AGGREGATE(1);

  final int code;

  NvmlEccCounter(int code) {
    this.code = code;
  }
}
