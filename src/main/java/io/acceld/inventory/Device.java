package io.acceld.inventory;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One advertisable accelerator, as discovered. Immutable: a change of health or of any attribute
 * produces a new value, which is what lets {@link InventoryDiff} compare snapshots with equals.
 *
 * @param id stable ID: the GPU UUID for NVIDIA with NVML, the PCI address otherwise
 * @param resource the extended resource name, such as {@code nvidia.com/gpu}
 * @param vendorId PCI vendor ID
 * @param deviceId PCI device ID
 * @param model human-readable model name
 * @param pciAddress normalised PCI address ({@code 0000:3b:00.0})
 * @param numaNode NUMA node, -1 when unknown
 * @param driver kernel driver bound to the device, empty when unbound
 * @param deviceNodes device nodes relative to the device root ({@code nvidia0}, {@code
 *     dri/renderD128}); the agent checked that each exists
 * @param health current health
 * @param healthReason why the device is unhealthy; empty when healthy
 * @param nvidia NVML details, for NVIDIA GPUs when NVML is available
 */
public record Device(
    String id,
    String resource,
    int vendorId,
    int deviceId,
    String model,
    String pciAddress,
    int numaNode,
    Optional<String> driver,
    List<String> deviceNodes,
    Health health,
    Optional<String> healthReason,
    Optional<NvidiaDetails> nvidia) {

  /** The kubelet's limit on a device ID. */
  public static final int MAX_ID_LENGTH = 63;

  public Device {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(health, "health");
    if (id.isEmpty() || id.length() > MAX_ID_LENGTH || id.contains(",")) {
      throw new IllegalArgumentException(
          "device ID '" + id + "' must be 1-63 characters without commas");
    }
    deviceNodes = List.copyOf(deviceNodes);
  }

  public boolean isHealthy() {
    return health == Health.HEALTHY;
  }

  /** This device with another health; a healthy device carries no reason. */
  public Device withHealth(Health newHealth, Optional<String> reason) {
    Optional<String> kept = newHealth == Health.HEALTHY ? Optional.empty() : reason;
    return new Device(
        id,
        resource,
        vendorId,
        deviceId,
        model,
        pciAddress,
        numaNode,
        driver,
        deviceNodes,
        newHealth,
        kept,
        nvidia);
  }

  /** The vendor ID as written in sysfs and in our JSON: {@code 0x10de}. */
  public String vendorHex() {
    return String.format("0x%04x", vendorId);
  }
}
