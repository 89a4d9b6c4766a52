package io.acceld.inventory;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What NVML told us about one NVIDIA GPU. Present only when NVML was loaded; without it an NVIDIA
 * GPU is known by its PCI address alone.
 *
 * @param uuid the GPU UUID ({@code GPU-...}), also the device's inventory ID
 * @param index NVML's index; not stable across reboots and not the CUDA index
 * @param minor the minor number of {@code /dev/nvidia<minor>}, or -1 if NVML did not say
 * @param memoryBytes total framebuffer memory
 * @param cpuAffinity CPUs NVML reports as local to the GPU
 * @param migEnabled MIG mode, empty when the GPU or driver does not support MIG
 * @param computeCapability such as {@code 9.0}, empty on drivers that cannot tell
 * @param mig present for a MIG device: then {@code uuid} is its MIG UUID, {@code index} and {@code
 *     minor} are the parent's, and {@code memoryBytes} is the instance's
 */
public record NvidiaDetails(
    String uuid,
    int index,
    int minor,
    long memoryBytes,
    List<Integer> cpuAffinity,
    Optional<Boolean> migEnabled,
    Optional<String> computeCapability,
    Optional<MigDetails> mig) {

  public NvidiaDetails {
    cpuAffinity = List.copyOf(cpuAffinity);
    Objects.requireNonNull(mig, "mig");
  }

  /** A whole GPU. */
  public NvidiaDetails(
      String uuid,
      int index,
      int minor,
      long memoryBytes,
      List<Integer> cpuAffinity,
      Optional<Boolean> migEnabled,
      Optional<String> computeCapability) {
    this(
        uuid,
        index,
        minor,
        memoryBytes,
        cpuAffinity,
        migEnabled,
        computeCapability,
        Optional.empty());
  }
}
