package io.acceld.nvml;

/**
 * NVML functions that older drivers lack. {@link NvmlLoader} probes each symbol once; {@link Nvml}
 * consults the result instead of letting JNA's lazy lookup throw {@link UnsatisfiedLinkError} on
 * the first metric poll.
 */
public enum NvmlCapability {
  MIG_MODE("nvmlDeviceGetMigMode"),
  CUDA_COMPUTE_CAPABILITY("nvmlDeviceGetCudaComputeCapability"),
  NVLINK_STATE("nvmlDeviceGetNvLinkState"),
  NVLINK_REMOTE_PCI_INFO("nvmlDeviceGetNvLinkRemotePciInfo_v2"),
  CUDA_DRIVER_VERSION_V2("nvmlSystemGetCudaDriverVersion_v2"),
  MEMORY_INFO_V2("nvmlDeviceGetMemoryInfo_v2"),
  REMAPPED_ROWS("nvmlDeviceGetRemappedRows"),
  MIG_DEVICES("nvmlDeviceGetMigDeviceHandleByIndex"),
  MIG_ATTRIBUTES("nvmlDeviceGetAttributes_v2"),
  MIG_PROFILES("nvmlGpuInstanceGetInfo");

  private final String symbol;

  NvmlCapability(String symbol) {
    this.symbol = symbol;
  }

  /** The exported C symbol whose presence grants this capability. */
  public String symbol() {
    return symbol;
  }
}
