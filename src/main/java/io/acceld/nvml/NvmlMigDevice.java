package io.acceld.nvml;

import java.util.Objects;
import java.util.Optional;

/**
 * One MIG device (a compute instance of a GPU instance) as NVML describes it.
 *
 * @param migIndex its index on the parent ({@code nvmlDeviceGetMigDeviceHandleByIndex})
 * @param uuid {@code MIG-...}: the device's ID everywhere (kubelet, CDI, NVIDIA_VISIBLE_DEVICES)
 * @param gpuInstanceId the GPU instance's ID, as NVML events and {@code nvidia-caps} name it
 * @param computeInstanceId the compute instance's ID within its GPU instance
 * @param profile the incumbent's profile string ({@code 1g.10gb}, {@code 1g.10gb+me})
 * @param profileNamed false when NVML could not tell the GPU-instance profile (no permission, an
 *     old driver): {@code profile} is then built from slice counts and memory alone
 * @param memoryBytes the instance's memory; -1 if unknown
 * @param attributes its share of the GPU; empty on drivers before 11.1
 */
public record NvmlMigDevice(
    int migIndex,
    String uuid,
    int gpuInstanceId,
    int computeInstanceId,
    String profile,
    boolean profileNamed,
    long memoryBytes,
    Optional<NvmlMigAttributes> attributes) {
  public NvmlMigDevice {
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(attributes, "attributes");
  }
}
