package io.acceld.inventory;

import java.util.Optional;

/**
 * Facts about the node rather than one device.
 *
 * @param nvidiaDriverVersion the NVIDIA driver version, when NVML is loaded
 * @param cudaVersion the CUDA driver API version, such as {@code 12.4}
 */
public record NodeInfo(Optional<String> nvidiaDriverVersion, Optional<String> cudaVersion) {
  public static final NodeInfo EMPTY = new NodeInfo(Optional.empty(), Optional.empty());
}
