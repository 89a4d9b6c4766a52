package io.acceld.nvml;

/**
 * An NVML function returned something other than success.
 *
 * <p>Unchecked because almost every NVML call can fail and callers handle failures at a coarse
 * level (per GPU, per poll), not per call. It carries the raw code so callers can react to specific
 * ones, e.g. {@link #isGpuLost()} marks a device unhealthy.
 */
public final class NvmlException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String function;
  private final int returnCode;

  public NvmlException(String function, int returnCode) {
    super(function + " failed: " + NvmlReturn.describe(returnCode));
    this.function = function;
    this.returnCode = returnCode;
  }

  /** The NVML C function that failed, e.g. {@code nvmlDeviceGetUUID}. */
  public String function() {
    return function;
  }

  public int returnCode() {
    return returnCode;
  }

  /** E.g. {@code NVML_ERROR_GPU_IS_LOST}. */
  public String returnName() {
    return NvmlReturn.name(returnCode);
  }

  /** The GPU has fallen off the bus: the device is unusable until reset or reboot. */
  public boolean isGpuLost() {
    return returnCode == NvmlReturn.ERROR_GPU_IS_LOST;
  }
}
