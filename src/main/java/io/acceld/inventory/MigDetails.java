package io.acceld.inventory;

import java.util.Objects;
import java.util.Optional;

/**
 * What makes a device a MIG device: a compute instance of a GPU instance on a parent GPU in MIG
 * mode. The device's own ID (and {@link NvidiaDetails#uuid()}) is its {@code MIG-} UUID.
 *
 * @param parentUuid the parent GPU's UUID ({@code GPU-...}): the unit a whole-GPU lease holds
 * @param profile the incumbent's profile string, such as {@code 1g.10gb} or {@code 1g.10gb+me}
 * @param gpuInstanceId the GPU instance's ID, as NVML's events and {@code nvidia-caps} name it
 * @param computeInstanceId the compute instance's ID within its GPU instance
 * @param migIndex its MIG index on the parent
 * @param attributes its share of the GPU (slices, SMs, engines, memory); empty on drivers before
 *     11.1, which cannot tell
 */
public record MigDetails(
    String parentUuid,
    String profile,
    int gpuInstanceId,
    int computeInstanceId,
    int migIndex,
    Optional<MigAttributes> attributes) {
  public MigDetails {
    Objects.requireNonNull(parentUuid, "parentUuid");
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(attributes, "attributes");
  }
}
