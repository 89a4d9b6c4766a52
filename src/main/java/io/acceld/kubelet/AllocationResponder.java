package io.acceld.kubelet;

import io.acceld.allocation.RuntimeSpec;
import io.acceld.allocation.RuntimeSpecs;
import io.acceld.inventory.Device;
import io.acceld.proto.deviceplugin.v1beta1.CDIDevice;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.DeviceSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Renders what a container gets for its devices, the neutral {@link RuntimeSpec}, as the kubelet's
 * {@code ContainerAllocateResponse}: envs, device specs (unless {@code --pass-device-specs=false})
 * and CDI device names.
 */
public final class AllocationResponder {
  public static final String NVIDIA_VISIBLE_DEVICES = RuntimeSpecs.NVIDIA_VISIBLE_DEVICES;

  private final RuntimeSpecs specs;
  private final boolean passDeviceSpecs;

  /** How CDI names devices: {@code <kind>=<device name>}. */
  public interface CdiNames {
    String qualifiedName(Device device);
  }

  public AllocationResponder(Path hostDevPrefix, boolean passDeviceSpecs, Optional<CdiNames> cdi) {
    this.specs = new RuntimeSpecs(hostDevPrefix, cdi.map(names -> names::qualifiedName));
    this.passDeviceSpecs = passDeviceSpecs;
  }

  /**
   * The response for one container.
   *
   * @param devices the physical devices, in the order the kubelet asked, without duplicates
   */
  public ContainerAllocateResponse respond(List<Device> devices) {
    return render(specs.forDevices(devices));
  }

  ContainerAllocateResponse render(RuntimeSpec spec) {
    ContainerAllocateResponse.Builder response = ContainerAllocateResponse.newBuilder();
    response.putAllEnvs(spec.env());
    if (passDeviceSpecs) {
      for (RuntimeSpec.DeviceNode node : spec.deviceNodes()) {
        response.addDevices(
            DeviceSpec.newBuilder()
                .setHostPath(node.hostPath())
                .setContainerPath(node.containerPath())
                .setPermissions(node.permissions()));
      }
    }
    for (String name : spec.cdiDevices()) {
      response.addCdiDevices(CDIDevice.newBuilder().setName(name));
    }
    return response.build();
  }

  static String nvidiaVisibleName(Device d) {
    return RuntimeSpecs.nvidiaVisibleName(d);
  }
}
