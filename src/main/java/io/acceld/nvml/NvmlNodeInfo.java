package io.acceld.nvml;

import java.util.List;

/**
 * What NVML says about this node, from {@link NvmlProbe#probe()}.
 *
 * @param driverVersion e.g. {@code 550.54.15}; null if NVML could not say
 * @param cudaVersion highest CUDA version the driver supports, e.g. {@code 12.4}; null if unknown
 * @param gpus in NVML index order; GPUs whose bus id was unreadable are left out
 * @param links one entry per unordered pair of {@code gpus}, in index order
 */
public record NvmlNodeInfo(
    String driverVersion, String cudaVersion, List<NvmlGpu> gpus, List<NvmlGpuLink> links) {

  public NvmlNodeInfo {
    gpus = List.copyOf(gpus);
    links = List.copyOf(links);
  }
}
