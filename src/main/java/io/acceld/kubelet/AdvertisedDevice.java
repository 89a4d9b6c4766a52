package io.acceld.kubelet;

import io.acceld.inventory.Device;

/**
 * One entry of a resource's ListAndWatch list: the ID the kubelet sees and the physical device
 * behind it. Without sharing the two IDs are equal; with {@code replicas: N} each device appears N
 * times as {@code <id>::<k>} ({@link io.acceld.inventory.ReplicaId}).
 */
public record AdvertisedDevice(String kubeletId, Device device) {}
