package io.acceld.inventory;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What amdgpu and its KFD topology tell about one AMD GPU in sysfs: the properties AMD's node
 * labeller turns into {@code amd.com/gpu.*} labels. Each is empty when sysfs does not say (an older
 * kernel, a card without KFD), never guessed.
 *
 * @param productName {@code product_name} as the driver publishes it ({@code AMD Instinct MI300X})
 * @param vramBytes the size of the GPU's first KFD memory bank ({@code mem_banks/0} {@code
 *     size_in_bytes})
 * @param simdCount SIMDs of the GPU's KFD node ({@code simd_count})
 * @param simdPerCu SIMDs per compute unit ({@code simd_per_cu})
 * @param driverVersion the amdgpu module's {@code version}
 * @param driverSrcVersion the amdgpu module's {@code srcversion}
 * @param computePartition {@code current_compute_partition} ({@code SPX}), on partitionable GPUs
 * @param memoryPartition {@code current_memory_partition} ({@code NPS1}), on partitionable GPUs
 * @param computePartitioning whether the GPU offers compute partitions ({@code
 *     available_compute_partition} exists)
 * @param memoryPartitioning whether the GPU offers memory partitions ({@code
 *     available_memory_partition} exists)
 */
public record AmdDetails(
    Optional<String> productName,
    OptionalLong vramBytes,
    OptionalInt simdCount,
    OptionalInt simdPerCu,
    Optional<String> driverVersion,
    Optional<String> driverSrcVersion,
    Optional<String> computePartition,
    Optional<String> memoryPartition,
    boolean computePartitioning,
    boolean memoryPartitioning) {

  public AmdDetails {
    Objects.requireNonNull(productName, "productName");
    Objects.requireNonNull(vramBytes, "vramBytes");
    Objects.requireNonNull(simdCount, "simdCount");
    Objects.requireNonNull(simdPerCu, "simdPerCu");
    Objects.requireNonNull(driverVersion, "driverVersion");
    Objects.requireNonNull(driverSrcVersion, "driverSrcVersion");
    Objects.requireNonNull(computePartition, "computePartition");
    Objects.requireNonNull(memoryPartition, "memoryPartition");
  }

  /** Compute units: SIMDs over SIMDs per CU, as the node labeller counts them. */
  public OptionalInt computeUnits() {
    if (simdCount.isEmpty() || simdPerCu.isEmpty() || simdPerCu.getAsInt() <= 0) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(simdCount.getAsInt() / simdPerCu.getAsInt());
  }
}
