package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.proto.deviceplugin.v1beta1.CDIDevice;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.DeviceSpec;
import io.acceld.testing.TestDevices;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AllocationResponderTest {
  private final AllocationResponder responder =
      new AllocationResponder(Path.of("/dev"), true, Optional.empty());

  @Test
  void nvidiaGetsUuidsInRequestOrderAndEveryNodeOnce() {
    ContainerAllocateResponse r =
        responder.respond(List.of(TestDevices.nvidia(3, 0), TestDevices.nvidia(1, 0)));

    assertThat(r.getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", TestDevices.uuid(3) + "," + TestDevices.uuid(1));
    assertThat(r.getDevicesList())
        .extracting(DeviceSpec::getHostPath)
        .containsExactly(
            "/dev/nvidia3",
            "/dev/nvidiactl",
            "/dev/nvidia-uvm",
            "/dev/nvidia-uvm-tools",
            "/dev/nvidia-modeset",
            "/dev/nvidia1");
    assertThat(r.getDevicesList()).allSatisfy(d -> assertThat(d.getPermissions()).isEqualTo("rw"));
    assertThat(r.getDevicesList())
        .allSatisfy(d -> assertThat(d.getContainerPath()).isEqualTo(d.getHostPath()));
    assertThat(r.getCdiDevicesList()).isEmpty();
  }

  @Test
  void theHostPrefixAppliesToHostPathsOnly() {
    AllocationResponder prefixed =
        new AllocationResponder(Path.of("/run/nvidia/driver/dev"), true, Optional.empty());

    DeviceSpec spec = prefixed.respond(List.of(TestDevices.nvidia(0, 0))).getDevices(0);

    assertThat(spec.getHostPath()).isEqualTo("/run/nvidia/driver/dev/nvidia0");
    assertThat(spec.getContainerPath()).isEqualTo("/dev/nvidia0");
  }

  @Test
  void amdGetsKfdOnceAndEachGpusOwnDrmNodes() {
    ContainerAllocateResponse r =
        responder.respond(List.of(TestDevices.amd(1, 0), TestDevices.amd(2, 1)));

    assertThat(r.getDevicesList())
        .extracting(DeviceSpec::getHostPath)
        .containsExactly(
            "/dev/kfd",
            "/dev/dri/card1",
            "/dev/dri/renderD129",
            "/dev/dri/card2",
            "/dev/dri/renderD130");
    assertThat(r.getEnvsMap()).doesNotContainKey("NVIDIA_VISIBLE_DEVICES");
  }

  @Test
  void withoutNvmlTheGpuIndexStandsForTheUuid() {
    ContainerAllocateResponse r = responder.respond(List.of(TestDevices.nvidiaWithoutNvml(5)));
    assertThat(r.getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", "5");
  }

  @Test
  void deviceSpecsCanBeTurnedOffAndCdiNamesTurnedOn() {
    AllocationResponder cdi =
        new AllocationResponder(Path.of("/dev"), false, Optional.of(CdiSpecWriter.names()));

    ContainerAllocateResponse r =
        cdi.respond(List.of(TestDevices.nvidia(0, 0), TestDevices.amd(1, 0)));

    assertThat(r.getDevicesList()).isEmpty();
    assertThat(r.getCdiDevicesList())
        .extracting(CDIDevice::getName)
        .containsExactly("nvidia.com/gpu=" + TestDevices.uuid(0), "amd.com/gpu=0000:42:00.0");
  }
}
