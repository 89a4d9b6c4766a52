package io.acceld.labels;

import io.acceld.config.MigStrategy;
import io.acceld.config.SharingPolicy;
import io.acceld.inventory.Inventory;
import java.util.Objects;
import java.util.function.Function;

/**
 * Everything node labels are computed from: the inventory (devices, and the node's facts: NVIDIA
 * GPUs as found, driver and CUDA versions, the machine's model) and the two settings GPU Feature
 * Discovery's values depend on.
 *
 * @param inventory the current inventory
 * @param migStrategy how MIG-enabled GPUs are advertised
 * @param sharing each resource's time-slicing policy, by resource name
 */
public record LabelInputs(
    Inventory inventory, MigStrategy migStrategy, Function<String, SharingPolicy> sharing) {
  public LabelInputs {
    Objects.requireNonNull(inventory, "inventory");
    Objects.requireNonNull(migStrategy, "migStrategy");
    Objects.requireNonNull(sharing, "sharing");
  }
}
