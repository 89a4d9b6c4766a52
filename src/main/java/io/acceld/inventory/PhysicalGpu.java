package io.acceld.inventory;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An NVIDIA GPU as discovery found it, whatever is advertised of it: whole, as its MIG devices, or
 * (under a {@code single} MIG strategy the node breaks) nothing. Node labels describe the boards,
 * as NVIDIA's GPU Feature Discovery does, so they need the GPUs the MIG strategy replaced or
 * withdrew too.
 *
 * @param id the GPU's UUID, or its PCI address when NVML did not say
 * @param pciAddress normalised PCI address
 * @param nvmlIndex NVML's index; -1 when NVML does not know the GPU (then MIG mode, memory and
 *     compute capability are unknown too)
 * @param model the model name, such as {@code NVIDIA H100 80GB HBM3}, from NVML or else the
 *     driver's procfs file; empty when neither names it
 * @param pciClass the 24-bit PCI class code: {@code 0x030200} (3D controller) for a GPU in compute
 *     mode, {@code 0x030000} (VGA) in graphics mode
 * @param memoryBytes total framebuffer memory, when NVML could read it
 * @param computeCapability such as {@code 9.0}, when the driver can tell
 * @param migEnabled MIG mode; empty when the GPU or driver cannot do MIG
 * @param migProfiles the profile of each of its MIG devices, in MIG index order; empty unless it is
 *     in MIG mode with instances
 */
public record PhysicalGpu(
    String id,
    String pciAddress,
    int nvmlIndex,
    Optional<String> model,
    int pciClass,
    OptionalLong memoryBytes,
    Optional<String> computeCapability,
    Optional<Boolean> migEnabled,
    List<String> migProfiles) {

  public PhysicalGpu {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(pciAddress, "pciAddress");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(memoryBytes, "memoryBytes");
    Objects.requireNonNull(computeCapability, "computeCapability");
    Objects.requireNonNull(migEnabled, "migEnabled");
    migProfiles = List.copyOf(migProfiles);
  }

  /** Whether NVML reported this GPU (the facts it alone gives are then known). */
  public boolean seenByNvml() {
    return nvmlIndex >= 0;
  }

  /** In MIG mode now. */
  public boolean inMigMode() {
    return migEnabled.orElse(false);
  }
}
