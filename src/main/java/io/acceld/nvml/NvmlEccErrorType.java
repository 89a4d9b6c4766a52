package io.acceld.nvml;

/** {@code nvmlMemoryErrorType_t}. */
public enum NvmlEccErrorType {
  /** Single-bit, corrected by ECC. */
  CORRECTED(0),
  /** Double-bit, not correctable: the GPU's memory contents are unreliable. */
  UNCORRECTED(1);

  final int code;

  NvmlEccErrorType(int code) {
    this.code = code;
  }
}
