package io.acceld.kubelet;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.ledger.Lease;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a resource's ListAndWatch list: the ID the kubelet sees and the physical device
 * behind it. Without sharing the two IDs are equal; with {@code replicas: N} each device appears N
 * times as {@code <id>::<k>} ({@link io.acceld.inventory.ReplicaId}).
 *
 * @param device the device with its own health, as health monitoring sees it
 * @param heldElsewhere a lease by another side (a Mesos task): the kubelet is shown the device
 *     Unhealthy so that it admits no pod onto it, though nothing is wrong with the device
 */
public record AdvertisedDevice(String kubeletId, Device device, Optional<Lease> heldElsewhere) {
  public AdvertisedDevice {
    Objects.requireNonNull(kubeletId, "kubeletId");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(heldElsewhere, "heldElsewhere");
  }

  public AdvertisedDevice(String kubeletId, Device device) {
    this(kubeletId, device, Optional.empty());
  }

  /** The health the kubelet is told. */
  public Health advertisedHealth() {
    return heldElsewhere.isPresent() ? Health.UNHEALTHY : device.health();
  }
}
