package io.acceld.discovery;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The attribute files amdgpu adds to its PCI devices that node labels need: the partition mode of
 * partitionable GPUs (MI300 and later) and the driver module's version. Read by the PCI scan, under
 * its deadline, only for AMD devices.
 *
 * @param computePartition {@code current_compute_partition}, such as {@code SPX}
 * @param memoryPartition {@code current_memory_partition}, such as {@code NPS1}
 * @param computePartitioning whether {@code available_compute_partition} exists
 * @param memoryPartitioning whether {@code available_memory_partition} exists
 * @param driverVersion {@code driver/module/version}
 * @param driverSrcVersion {@code driver/module/srcversion}
 */
public record AmdgpuAttributes(
    Optional<String> computePartition,
    Optional<String> memoryPartition,
    boolean computePartitioning,
    boolean memoryPartitioning,
    Optional<String> driverVersion,
    Optional<String> driverSrcVersion) {

  public static final AmdgpuAttributes NONE =
      new AmdgpuAttributes(
          Optional.empty(), Optional.empty(), false, false, Optional.empty(), Optional.empty());

  public AmdgpuAttributes {
    Objects.requireNonNull(computePartition, "computePartition");
    Objects.requireNonNull(memoryPartition, "memoryPartition");
    Objects.requireNonNull(driverVersion, "driverVersion");
    Objects.requireNonNull(driverSrcVersion, "driverSrcVersion");
  }

  /** Reads them from the device directory {@code dir}; an absent or empty file reads as unknown. */
  static AmdgpuAttributes read(SysfsFiles files, Path dir) {
    return new AmdgpuAttributes(
        nonBlank(files, dir.resolve("current_compute_partition")),
        nonBlank(files, dir.resolve("current_memory_partition")),
        nonBlank(files, dir.resolve("available_compute_partition")).isPresent(),
        nonBlank(files, dir.resolve("available_memory_partition")).isPresent(),
        nonBlank(files, dir.resolve("driver/module/version")),
        nonBlank(files, dir.resolve("driver/module/srcversion")));
  }

  private static Optional<String> nonBlank(SysfsFiles files, Path file) {
    return files.optionalString(file).filter(s -> !s.isBlank());
  }
}
