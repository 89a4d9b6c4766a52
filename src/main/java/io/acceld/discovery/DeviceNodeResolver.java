package io.acceld.discovery;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Works out which device nodes belong to a device and checks that they exist under the device root
 * ({@code --dev-root}). Names are kept relative ({@code nvidia0}, {@code dri/renderD128}) because
 * where the agent reads them and where the container runtime finds them are separate settings.
 */
public final class DeviceNodeResolver {
  /** NVIDIA control nodes every GPU container needs, handed out where they exist. */
  public static final List<String> NVIDIA_CONTROL_NODES =
      List.of("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset");

  private final Path devRoot;

  public DeviceNodeResolver(Path devRoot) {
    this.devRoot = devRoot;
  }

  /**
   * Nodes of an NVIDIA GPU.
   *
   * @param minor the GPU's minor number, if known
   */
  public DeviceNodes nvidia(PciDevice device, OptionalInt minor) {
    if (device.boundTo("vfio-pci")) {
      return vfio(device);
    }
    List<String> present = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    if (minor.isPresent()) {
      require("nvidia" + minor.getAsInt(), present, missing);
    } else {
      missing.add("nvidia<minor unknown>");
    }
    NVIDIA_CONTROL_NODES.forEach(n -> optional(n, present));
    return new DeviceNodes(present, missing);
  }

  /** Nodes of an AMD GPU: the shared {@code kfd} plus the GPU's own DRM nodes. */
  public DeviceNodes amd(PciDevice device) {
    if (device.boundTo("vfio-pci")) {
      return vfio(device);
    }
    List<String> present = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    optional("kfd", present);
    drm(device, present, missing);
    return new DeviceNodes(present, missing);
  }

  /** Nodes of a Habana Gaudi: {@code accel/accel<N>} and its control node. */
  public DeviceNodes habana(PciDevice device) {
    if (device.boundTo("vfio-pci")) {
      return vfio(device);
    }
    List<String> present = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (String accel : device.accelNodes()) {
      require("accel/" + accel, present, missing);
      optional("accel/accel_controlD" + accel.substring("accel".length()), present);
    }
    if (device.accelNodes().isEmpty()) {
      missing.add("accel/accel<N>");
    }
    return new DeviceNodes(present, missing);
  }

  /**
   * Nodes of any other device: its DRM and accel nodes, or its VFIO group when bound to vfio-pci.
   */
  public DeviceNodes generic(PciDevice device) {
    if (device.boundTo("vfio-pci")) {
      return vfio(device);
    }
    List<String> present = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    drm(device, present, missing);
    device.accelNodes().forEach(a -> require("accel/" + a, present, missing));
    return new DeviceNodes(present, missing);
  }

  private DeviceNodes vfio(PciDevice device) {
    List<String> present = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    require("vfio/vfio", present, missing);
    if (device.iommuGroup().isPresent()) {
      require("vfio/" + device.iommuGroup().getAsInt(), present, missing);
    } else {
      missing.add("vfio/<iommu group unknown>");
    }
    return new DeviceNodes(present, missing);
  }

  private void drm(PciDevice device, List<String> present, List<String> missing) {
    for (String node : device.drmNodes()) {
      require("dri/" + node, present, missing);
    }
  }

  private void require(String node, List<String> present, List<String> missing) {
    (exists(node) ? present : missing).add(node);
  }

  private void optional(String node, List<String> present) {
    if (exists(node)) {
      present.add(node);
    }
  }

  private boolean exists(String node) {
    return Files.exists(devRoot.resolve(node));
  }
}
