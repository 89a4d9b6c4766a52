package io.acceld.allocation;

import io.acceld.discovery.DeviceClassifier;
import io.acceld.inventory.Device;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Builds the {@link RuntimeSpec} of a device set from the inventory's values only, so it costs no
 * I/O and no NVML call.
 *
 * <p>Device nodes carry the host's view: the host path is the node under {@code --host-dev-prefix}
 * (where the container runtime finds it), the container path the node under {@code /dev}. Neither
 * uses {@code --dev-root}, which is only where the agent itself reads.
 */
public final class RuntimeSpecs {
  public static final String NVIDIA_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  private static final Path CONTAINER_DEV = Path.of("/dev");

  private final Path hostDevPrefix;
  private final Optional<Function<Device, String>> cdiName;

  /**
   * @param cdiName the qualified CDI name of a device, when CDI specs are written
   */
  public RuntimeSpecs(Path hostDevPrefix, Optional<Function<Device, String>> cdiName) {
    this.hostDevPrefix = hostDevPrefix;
    this.cdiName = cdiName;
  }

  /**
   * The spec for {@code devices}: physical devices, in the order the workload asked, without
   * duplicates.
   */
  public RuntimeSpec forDevices(List<Device> devices) {
    List<String> nvidia = new ArrayList<>();
    Set<String> nodes = new LinkedHashSet<>();
    for (Device d : devices) {
      if (d.vendorId() == DeviceClassifier.VENDOR_NVIDIA) {
        nvidia.add(nvidiaVisibleName(d));
      }
      nodes.addAll(d.deviceNodes());
    }
    Map<String, String> env = new LinkedHashMap<>();
    if (!nvidia.isEmpty()) {
      env.put(NVIDIA_VISIBLE_DEVICES, String.join(",", nvidia));
    }
    List<RuntimeSpec.DeviceNode> deviceNodes = new ArrayList<>();
    for (String node : nodes) {
      deviceNodes.add(
          new RuntimeSpec.DeviceNode(
              hostDevPrefix.resolve(node).toString(),
              CONTAINER_DEV.resolve(node).toString(),
              "rw"));
    }
    List<String> cdi = cdiName.map(names -> devices.stream().map(names).toList()).orElse(List.of());
    return new RuntimeSpec(env, deviceNodes, cdi, List.of());
  }

  /**
   * What the NVIDIA container runtime and CUDA know a GPU by: its UUID. Without NVML the UUID is
   * unknown and the GPU index is used, which for whole GPUs follows the minor number of its node.
   */
  public static String nvidiaVisibleName(Device d) {
    if (d.nvidia().isPresent()) {
      return d.nvidia().get().uuid();
    }
    for (String node : d.deviceNodes()) {
      if (node.matches("nvidia[0-9]+")) {
        return node.substring("nvidia".length());
      }
    }
    return d.id();
  }
}
