package io.acceld.nvml;

import java.util.Objects;

/**
 * How closely two GPUs are connected; the input to topology-aware allocation.
 *
 * @param pciAddressA sysfs address of the GPU with the lower index
 * @param pciAddressB sysfs address of the other GPU
 * @param topologyLevel an {@link NvmlTopologyLevel} (lower is closer), or {@link
 *     NvmlTopologyLevel#UNKNOWN} when NVML could not tell
 * @param nvlinks active NVLinks between the two (0 when none or unknown)
 */
public record NvmlGpuLink(String pciAddressA, String pciAddressB, int topologyLevel, int nvlinks) {

  public NvmlGpuLink {
    Objects.requireNonNull(pciAddressA, "pciAddressA");
    Objects.requireNonNull(pciAddressB, "pciAddressB");
  }
}
