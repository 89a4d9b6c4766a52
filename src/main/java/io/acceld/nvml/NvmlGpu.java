package io.acceld.nvml;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One GPU as NVML sees it. A GPU that failed part-way (typically {@code lost}) carries what could
 * be read: null uuid/name, -1 minor/memory, empty lists and optionals for the rest.
 *
 * @param index NVML index (not the CUDA index)
 * @param uuid {@code GPU-...}; null if unreadable
 * @param name model name, e.g. {@code NVIDIA H100 80GB HBM3}; null if unreadable
 * @param minor N in {@code /dev/nvidiaN}; -1 if unknown
 * @param pciAddress sysfs form, e.g. {@code 0000:18:00.0}: the key to join with the PCI scan
 * @param memoryBytes total frame-buffer memory; -1 if unknown
 * @param cpuAffinity CPUs local to the GPU, ascending; empty if unknown. NUMA node is not here: it
 *     comes from sysfs ({@code numa_node}), which NVML does not expose for discrete GPUs
 * @param migEnabled empty when the GPU or driver cannot do MIG
 * @param computeCapability e.g. {@code 9.0}; empty if the driver cannot tell
 * @param lost the GPU answered GPU_IS_LOST: it fell off the bus and is unusable
 * @param migPending the MIG mode after the GPU's next reset; empty as {@code migEnabled}
 * @param migDevices the MIG devices of a GPU in MIG mode, by MIG index
 */
public record NvmlGpu(
    int index,
    String uuid,
    String name,
    int minor,
    String pciAddress,
    long memoryBytes,
    List<Integer> cpuAffinity,
    Optional<Boolean> migEnabled,
    Optional<String> computeCapability,
    boolean lost,
    Optional<Boolean> migPending,
    List<NvmlMigDevice> migDevices) {

  public NvmlGpu {
    Objects.requireNonNull(pciAddress, "pciAddress");
    cpuAffinity = List.copyOf(cpuAffinity);
    Objects.requireNonNull(migEnabled, "migEnabled");
    Objects.requireNonNull(computeCapability, "computeCapability");
    Objects.requireNonNull(migPending, "migPending");
    migDevices = List.copyOf(migDevices);
  }

  /** A GPU without MIG devices, its pending MIG mode the current one. */
  public NvmlGpu(
      int index,
      String uuid,
      String name,
      int minor,
      String pciAddress,
      long memoryBytes,
      List<Integer> cpuAffinity,
      Optional<Boolean> migEnabled,
      Optional<String> computeCapability,
      boolean lost) {
    this(
        index,
        uuid,
        name,
        minor,
        pciAddress,
        memoryBytes,
        cpuAffinity,
        migEnabled,
        computeCapability,
        lost,
        migEnabled,
        List.of());
  }

  /** This GPU with its MIG mode and devices read again. */
  public NvmlGpu withMig(
      Optional<Boolean> enabled, Optional<Boolean> pending, List<NvmlMigDevice> devices) {
    return new NvmlGpu(
        index,
        uuid,
        name,
        minor,
        pciAddress,
        memoryBytes,
        cpuAffinity,
        enabled,
        computeCapability,
        lost,
        pending,
        devices);
  }
}
