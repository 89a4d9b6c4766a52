package io.acceld.testing;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.MigAttributes;
import io.acceld.inventory.MigDetails;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.inventory.Topology;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Hand-made devices for tests that do not need a whole fixture tree. */
public final class TestDevices {
  private TestDevices() {}

  public static String uuid(int index) {
    return String.format(Locale.ROOT, "GPU-%08x-0000-4000-8000-%012x", index, index);
  }

  /** An H100 seen through NVML, with its own node and the NVIDIA control nodes. */
  public static Device nvidia(int index, int numa) {
    return new Device(
        uuid(index),
        "nvidia.com/gpu",
        0x10de,
        0x2330,
        "NVIDIA H100 80GB HBM3",
        String.format(Locale.ROOT, "0000:%02x:00.0", 0x18 + index),
        numa,
        Optional.of("nvidia"),
        List.of("nvidia" + index, "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"),
        Health.HEALTHY,
        Optional.empty(),
        Optional.of(
            new NvidiaDetails(
                uuid(index),
                index,
                index,
                85_520_809_984L,
                List.of(),
                Optional.of(false),
                Optional.of("9.0"))));
  }

  /**
   * MIG device {@code gi} (compute instance 0) of profile {@code profile} on GPU {@code parent}, as
   * the {@code mixed} strategy advertises it.
   */
  public static Device mig(int parent, int gi, String profile) {
    Device gpu = nvidia(parent, 0);
    String id = String.format(Locale.ROOT, "MIG-%08x-0000-5000-a000-%012x", parent, gi);
    return new Device(
        id,
        "nvidia.com/mig-" + profile.replace('+', '.'),
        gpu.vendorId(),
        gpu.deviceId(),
        gpu.model() + " MIG " + profile,
        gpu.pciAddress(),
        gpu.numaNode(),
        gpu.driver(),
        List.of(
            "nvidia" + parent,
            "nvidiactl",
            "nvidia-uvm",
            "nvidia-uvm-tools",
            "nvidia-caps/nvidia-cap" + (3 + 135 * parent + 9 * gi),
            "nvidia-caps/nvidia-cap" + (4 + 135 * parent + 9 * gi)),
        Health.HEALTHY,
        Optional.empty(),
        Optional.of(
            new NvidiaDetails(
                id,
                parent,
                parent,
                9856L << 20,
                List.of(),
                Optional.empty(),
                Optional.of("9.0"),
                Optional.of(
                    new MigDetails(
                        uuid(parent),
                        profile,
                        gi,
                        0,
                        gi,
                        Optional.of(new MigAttributes(16, 1, 1, 0, 1, 0, 1, 1, 9856)))))));
  }

  /** An NVIDIA GPU known only by PCI address (no NVML). */
  public static Device nvidiaWithoutNvml(int minor) {
    String address = String.format(Locale.ROOT, "0000:%02x:00.0", 0x18 + minor);
    return new Device(
        address,
        "nvidia.com/gpu",
        0x10de,
        0x2330,
        "NVIDIA [2330]",
        address,
        -1,
        Optional.of("nvidia"),
        List.of("nvidia" + minor, "nvidiactl"),
        Health.HEALTHY,
        Optional.empty(),
        Optional.empty());
  }

  /** An AMD MI210 with kfd and its own DRM nodes. */
  public static Device amd(int card, int numa) {
    String address = String.format(Locale.ROOT, "0000:%02x:00.0", 0x41 + card);
    return new Device(
        address,
        "amd.com/gpu",
        0x1002,
        0x740f,
        "AMD Instinct MI210",
        address,
        numa,
        Optional.of("amdgpu"),
        List.of("kfd", "dri/card" + card, "dri/renderD" + (128 + card)),
        Health.HEALTHY,
        Optional.empty(),
        Optional.empty());
  }

  public static Inventory inventory(List<Device> devices) {
    return new Inventory(devices, NodeInfo.EMPTY, Topology.EMPTY);
  }
}
