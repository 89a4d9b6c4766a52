package io.acceld.kubelet;

import io.acceld.discovery.DeviceClassifier;
import io.acceld.inventory.Device;
import io.acceld.proto.deviceplugin.v1beta1.CDIDevice;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.DeviceSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Builds what a container gets for its devices: device specs for their nodes, the NVIDIA runtime's
 * {@code NVIDIA_VISIBLE_DEVICES}, and CDI device names when CDI is on. Works from the inventory's
 * values only, so an Allocate costs no I/O.
 *
 * <p>Device specs carry the host's view of the nodes: the host path is the node under {@code
 * --host-dev-prefix} (where the container runtime finds it), the container path is the node under
 * {@code /dev}. Neither uses {@code --dev-root}, which is only where the agent itself reads.
 */
public final class AllocationResponder {
  public static final String NVIDIA_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  private static final Path CONTAINER_DEV = Path.of("/dev");

  private final Path hostDevPrefix;
  private final boolean passDeviceSpecs;
  private final Optional<CdiNames> cdi;

  /** How CDI names devices: {@code <kind>=<device name>}. */
  public interface CdiNames {
    String qualifiedName(Device device);
  }

  public AllocationResponder(Path hostDevPrefix, boolean passDeviceSpecs, Optional<CdiNames> cdi) {
    this.hostDevPrefix = hostDevPrefix;
    this.passDeviceSpecs = passDeviceSpecs;
    this.cdi = cdi;
  }

  /**
   * The response for one container.
   *
   * @param devices the physical devices, in the order the kubelet asked, without duplicates
   */
  public ContainerAllocateResponse respond(List<Device> devices) {
    ContainerAllocateResponse.Builder response = ContainerAllocateResponse.newBuilder();
    List<String> nvidia = new ArrayList<>();
    Set<String> nodes = new LinkedHashSet<>();
    for (Device d : devices) {
      if (d.vendorId() == DeviceClassifier.VENDOR_NVIDIA) {
        nvidia.add(nvidiaVisibleName(d));
      }
      nodes.addAll(d.deviceNodes());
    }
    if (!nvidia.isEmpty()) {
      response.putEnvs(NVIDIA_VISIBLE_DEVICES, String.join(",", nvidia));
    }
    if (passDeviceSpecs) {
      for (String node : nodes) {
        response.addDevices(
            DeviceSpec.newBuilder()
                .setHostPath(hostDevPrefix.resolve(node).toString())
                .setContainerPath(CONTAINER_DEV.resolve(node).toString())
                .setPermissions("rw"));
      }
    }
    cdi.ifPresent(
        names ->
            devices.forEach(
                d ->
                    response.addCdiDevices(
                        CDIDevice.newBuilder().setName(names.qualifiedName(d)))));
    return response.build();
  }

  /**
   * What the NVIDIA container runtime knows a GPU by: its UUID. Without NVML the UUID is unknown
   * and the GPU index is used, which for whole GPUs follows the minor number of its node.
   */
  static String nvidiaVisibleName(Device d) {
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
