package io.acceld.health;

import io.acceld.discovery.DeviceClassifier;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.MigDetails;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlDevice;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * NVML handles of the inventory's NVIDIA GPUs, looked up once: by UUID when NVML named the GPU, by
 * PCI address otherwise (a GPU lost before it could be named). Handles stay valid for the NVML
 * session, so caching them keeps health checks to one NVML call per GPU.
 */
final class GpuHandles {
  private final Nvml nvml;
  private final Map<String, NvmlDevice> byDeviceId = new ConcurrentHashMap<>();

  GpuHandles(Nvml nvml) {
    this.nvml = nvml;
  }

  static List<Device> nvidiaGpus(Inventory inventory) {
    return inventory.devices().stream()
        .filter(d -> d.vendorId() == DeviceClassifier.VENDOR_NVIDIA)
        .filter(d -> d.deviceNodes().stream().noneMatch(n -> n.startsWith("vfio/")))
        .toList();
  }

  /**
   * The handle of {@code device}; throws {@link io.acceld.nvml.NvmlException} if NVML cannot find
   * it.
   */
  NvmlDevice of(Device device) {
    NvmlDevice cached = byDeviceId.get(device.id());
    if (cached != null) {
      return cached;
    }
    // Health is the GPU's: a MIG device is watched and probed through its parent's handle.
    NvmlDevice handle =
        device.nvidia().isPresent()
            ? nvml.deviceByUuid(
                device
                    .nvidia()
                    .get()
                    .mig()
                    .map(MigDetails::parentUuid)
                    .orElse(device.nvidia().get().uuid()))
            : nvml.deviceByPciBusId(device.pciAddress());
    byDeviceId.put(device.id(), handle);
    return handle;
  }
}
