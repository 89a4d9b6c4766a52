package io.acceld.mesos.scheduler;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.ledger.Availability;
import io.acceld.proto.mesos.v1.Attribute;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the next offer would hold: every available device no outstanding offer has, and the CPUs,
 * memory and disk left. Built fresh for each allocation; no state.
 *
 * @param devices the free devices' IDs by resource name ({@code gpus}, {@code amd.com/gpu})
 * @param amounts the scalars and the device counts by resource name
 * @param attributes the node's attributes, as the offer states them
 * @param hasGpus whether the node has NVIDIA GPUs at all (the GPU_RESOURCES filter asks)
 */
record OfferCandidate(
    Map<String, List<String>> devices,
    Quantities amounts,
    List<Attribute> attributes,
    boolean hasGpus) {
  /** The least Mesos offers of CPUs or memory (MIN_CPUS, MIN_MEM). */
  static final double MIN_CPUS = 0.01;

  static final double MIN_MEM = 32;

  /**
   * @param offeredDevices devices outstanding offers already hold
   * @param freeScalars CPUs, memory and disk no task, launch or offer has
   */
  static OfferCandidate of(
      Availability availability, Set<String> offeredDevices, Quantities freeScalars) {
    Inventory inventory = availability.inventory();
    List<Device> free =
        inventory.devices().stream()
            .filter(availability::isAvailable)
            .filter(d -> !offeredDevices.contains(d.id()))
            .toList();
    Map<String, List<String>> devices = DeviceResources.byName(free);
    Quantities amounts = freeScalars;
    for (Map.Entry<String, List<String>> e : devices.entrySet()) {
      amounts = amounts.plus(Quantities.of(e.getKey(), e.getValue().size()));
    }
    return new OfferCandidate(
        devices, amounts, NodeAttributes.of(inventory), DeviceResources.hasGpus(inventory));
  }

  /** Whether it is worth an offer: a device, or at least Mesos's least CPUs or memory. */
  boolean worthOffering() {
    return !devices.isEmpty() || amounts.get("cpus") >= MIN_CPUS || amounts.get("mem") >= MIN_MEM;
  }
}
