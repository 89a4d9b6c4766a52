package io.acceld.proto;

import static io.acceld.proto.Wire.concat;
import static io.acceld.proto.Wire.field;
import static io.acceld.proto.Wire.hex;
import static io.acceld.proto.Wire.message;
import static io.acceld.proto.Wire.string;
import static io.acceld.proto.Wire.varint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.CDIDevice;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.Device;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.proto.deviceplugin.v1beta1.DeviceSpec;
import io.acceld.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.acceld.proto.deviceplugin.v1beta1.Mount;
import io.acceld.proto.deviceplugin.v1beta1.NUMANode;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.RegisterRequest;
import io.acceld.proto.deviceplugin.v1beta1.RegistrationGrpc;
import io.acceld.proto.deviceplugin.v1beta1.TopologyInfo;
import io.grpc.MethodDescriptor.MethodType;
import org.junit.jupiter.api.Test;

/** Golden bytes for the kubelet device-plugin API (package v1beta1). */
class DevicePluginWireTest {

  private static Device gpu(String id, String health, long... numaNodes) {
    TopologyInfo.Builder topology = TopologyInfo.newBuilder();
    for (long n : numaNodes) {
      topology.addNodes(NUMANode.newBuilder().setID(n));
    }
    return Device.newBuilder().setID(id).setHealth(health).setTopology(topology).build();
  }

  @Test
  void deviceWithTopologyLiteralBytes() throws Exception {
    // ID(1)="GPU-0", health(2)="Healthy", topology(3)={nodes(1)={ID(1)=1}}
    byte[] golden = hex("0a 05 4750552d30 12 07 4865616c746879 1a 04 0a 02 08 01");

    Device built = gpu("GPU-0", "Healthy", 1);
    assertThat(built.toByteArray()).isEqualTo(golden);

    Device parsed = Device.parseFrom(golden);
    assertThat(parsed.getID()).isEqualTo("GPU-0");
    assertThat(parsed.getHealth()).isEqualTo("Healthy");
    assertThat(parsed.getTopology().getNodesList()).extracting(NUMANode::getID).containsExactly(1L);
    assertThat(parsed).isEqualTo(built);
  }

  @Test
  void listAndWatchResponseWithTwoDevices() throws Exception {
    // NUMA node 0 is an empty NUMANode on the wire: proto3 does not write zero scalars.
    byte[] golden =
        concat(
            field(
                1,
                message(
                    field(1, string("GPU-0")),
                    field(2, string("Healthy")),
                    field(3, message(field(1, message()))))),
            field(
                1,
                message(
                    field(1, string("GPU-1")),
                    field(2, string("Unhealthy")),
                    field(3, message(field(1, message(field(1, varint(1)))))))));

    ListAndWatchResponse built =
        ListAndWatchResponse.newBuilder()
            .addDevices(gpu("GPU-0", "Healthy", 0))
            .addDevices(gpu("GPU-1", "Unhealthy", 1))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    ListAndWatchResponse parsed = ListAndWatchResponse.parseFrom(golden);
    assertThat(parsed.getDevicesList()).extracting(Device::getID).containsExactly("GPU-0", "GPU-1");
    assertThat(parsed.getDevices(1).getHealth()).isEqualTo("Unhealthy");
    assertThat(parsed.getDevices(0).getTopology().getNodesCount()).isEqualTo(1);
    assertThat(parsed.getDevices(0).getTopology().getNodes(0).getID()).isZero();
    assertThat(parsed).isEqualTo(built);

    // A peer that writes the zero explicitly ("08 00") means the same thing.
    byte[] explicitZero = hex("0a 02 08 00");
    assertThat(TopologyInfo.parseFrom(explicitZero)).isEqualTo(built.getDevices(0).getTopology());
  }

  @Test
  void allocateResponseWithEnvMountDeviceSpecAndCdiDevice() throws Exception {
    byte[] containerResponse =
        concat(
            // envs = 1, one map entry { key = 1, value = 2 }
            field(
                1, message(field(1, string("NVIDIA_VISIBLE_DEVICES")), field(2, string("GPU-0")))),
            // mounts = 2 { container_path = 1, host_path = 2, read_only = 3 }
            field(
                2,
                message(
                    field(1, string("/usr/local/nvidia")),
                    field(2, string("/opt/nvidia")),
                    field(3, varint(1)))),
            // devices = 3 { container_path = 1, host_path = 2, permissions = 3 }
            field(
                3,
                message(
                    field(1, string("/dev/nvidia0")),
                    field(2, string("/dev/nvidia0")),
                    field(3, string("rw")))),
            // annotations = 4, one map entry
            field(4, message(field(1, string("acceld.io/devices")), field(2, string("GPU-0")))),
            // cdi_devices = 5 { name = 1 }
            field(5, message(field(1, string("acceld.io/gpu=GPU-0")))));
    byte[] golden = field(1, message(containerResponse));

    AllocateResponse built =
        AllocateResponse.newBuilder()
            .addContainerResponses(
                ContainerAllocateResponse.newBuilder()
                    .putEnvs("NVIDIA_VISIBLE_DEVICES", "GPU-0")
                    .addMounts(
                        Mount.newBuilder()
                            .setContainerPath("/usr/local/nvidia")
                            .setHostPath("/opt/nvidia")
                            .setReadOnly(true))
                    .addDevices(
                        DeviceSpec.newBuilder()
                            .setContainerPath("/dev/nvidia0")
                            .setHostPath("/dev/nvidia0")
                            .setPermissions("rw"))
                    .putAnnotations("acceld.io/devices", "GPU-0")
                    .addCdiDevices(CDIDevice.newBuilder().setName("acceld.io/gpu=GPU-0")))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    ContainerAllocateResponse parsed = AllocateResponse.parseFrom(golden).getContainerResponses(0);
    assertThat(parsed.getEnvsMap()).containsExactly(entry("NVIDIA_VISIBLE_DEVICES", "GPU-0"));
    assertThat(parsed.getMounts(0).getReadOnly()).isTrue();
    assertThat(parsed.getMounts(0).getHostPath()).isEqualTo("/opt/nvidia");
    assertThat(parsed.getDevices(0).getPermissions()).isEqualTo("rw");
    assertThat(parsed.getAnnotationsMap()).containsExactly(entry("acceld.io/devices", "GPU-0"));
    assertThat(parsed.getCdiDevicesList())
        .extracting(CDIDevice::getName)
        .containsExactly("acceld.io/gpu=GPU-0");
    assertThat(AllocateResponse.parseFrom(golden)).isEqualTo(built);
  }

  @Test
  void containerPreferredAllocationRequestFields1To3() throws Exception {
    byte[] request =
        concat(
            field(1, string("GPU-0")),
            field(1, string("GPU-1")),
            field(1, string("GPU-2")),
            field(2, string("GPU-1")),
            field(3, varint(2)));
    byte[] golden = field(1, message(request));

    PreferredAllocationRequest built =
        PreferredAllocationRequest.newBuilder()
            .addContainerRequests(
                ContainerPreferredAllocationRequest.newBuilder()
                    .addAvailableDeviceIDs("GPU-0")
                    .addAvailableDeviceIDs("GPU-1")
                    .addAvailableDeviceIDs("GPU-2")
                    .addMustIncludeDeviceIDs("GPU-1")
                    .setAllocationSize(2))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);
    assertThat(built.getContainerRequests(0).toByteArray()).isEqualTo(request);

    ContainerPreferredAllocationRequest parsed =
        ContainerPreferredAllocationRequest.parseFrom(request);
    assertThat(parsed.getAvailableDeviceIDsList()).containsExactly("GPU-0", "GPU-1", "GPU-2");
    assertThat(parsed.getMustIncludeDeviceIDsList()).containsExactly("GPU-1");
    assertThat(parsed.getAllocationSize()).isEqualTo(2);
  }

  @Test
  void registerRequestWithOptions() throws Exception {
    // options = 4 { pre_start_required = 1 (false: not written), get_preferred_... = 2 true }
    byte[] golden =
        concat(
            field(1, string("v1beta1")),
            field(2, string("acceld-gpu.sock")),
            field(3, string("acceld.io/gpu")),
            field(4, message(field(2, varint(1)))));

    RegisterRequest built =
        RegisterRequest.newBuilder()
            .setVersion("v1beta1")
            .setEndpoint("acceld-gpu.sock")
            .setResourceName("acceld.io/gpu")
            .setOptions(
                DevicePluginOptions.newBuilder()
                    .setPreStartRequired(false)
                    .setGetPreferredAllocationAvailable(true))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    RegisterRequest parsed = RegisterRequest.parseFrom(golden);
    assertThat(parsed.getVersion()).isEqualTo("v1beta1");
    assertThat(parsed.getEndpoint()).isEqualTo("acceld-gpu.sock");
    assertThat(parsed.getResourceName()).isEqualTo("acceld.io/gpu");
    assertThat(parsed.hasOptions()).isTrue();
    assertThat(parsed.getOptions().getPreStartRequired()).isFalse();
    assertThat(parsed.getOptions().getGetPreferredAllocationAvailable()).isTrue();
  }

  @Test
  void bothOptionsSetUsesFieldNumbers1And2() throws Exception {
    DevicePluginOptions options =
        DevicePluginOptions.newBuilder()
            .setPreStartRequired(true)
            .setGetPreferredAllocationAvailable(true)
            .build();
    assertThat(options.toByteArray()).isEqualTo(hex("08 01 10 01"));
    assertThat(DevicePluginOptions.getDefaultInstance().toByteArray()).isEmpty();
  }

  @Test
  void grpcServiceAndMethodNames() {
    assertThat(DevicePluginGrpc.SERVICE_NAME).isEqualTo("v1beta1.DevicePlugin");
    assertThat(RegistrationGrpc.SERVICE_NAME).isEqualTo("v1beta1.Registration");
    assertThat(RegistrationGrpc.getRegisterMethod().getFullMethodName())
        .isEqualTo("v1beta1.Registration/Register");

    assertThat(DevicePluginGrpc.getGetDevicePluginOptionsMethod().getFullMethodName())
        .isEqualTo("v1beta1.DevicePlugin/GetDevicePluginOptions");
    assertThat(DevicePluginGrpc.getListAndWatchMethod().getFullMethodName())
        .isEqualTo("v1beta1.DevicePlugin/ListAndWatch");
    assertThat(DevicePluginGrpc.getListAndWatchMethod().getType())
        .isEqualTo(MethodType.SERVER_STREAMING);
    assertThat(DevicePluginGrpc.getGetPreferredAllocationMethod().getFullMethodName())
        .isEqualTo("v1beta1.DevicePlugin/GetPreferredAllocation");
    assertThat(DevicePluginGrpc.getAllocateMethod().getFullMethodName())
        .isEqualTo("v1beta1.DevicePlugin/Allocate");
    assertThat(DevicePluginGrpc.getAllocateMethod().getType()).isEqualTo(MethodType.UNARY);
    assertThat(DevicePluginGrpc.getPreStartContainerMethod().getFullMethodName())
        .isEqualTo("v1beta1.DevicePlugin/PreStartContainer");
    assertThat(DevicePluginGrpc.getServiceDescriptor().getMethods()).hasSize(5);
  }
}
