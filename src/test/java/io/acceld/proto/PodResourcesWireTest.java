package io.acceld.proto;

import static io.acceld.proto.Wire.concat;
import static io.acceld.proto.Wire.field;
import static io.acceld.proto.Wire.message;
import static io.acceld.proto.Wire.packed;
import static io.acceld.proto.Wire.string;
import static io.acceld.proto.Wire.varint;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.proto.podresources.v1.AllocatableResourcesResponse;
import io.acceld.proto.podresources.v1.CDIDevice;
import io.acceld.proto.podresources.v1.ClaimResource;
import io.acceld.proto.podresources.v1.ContainerDevices;
import io.acceld.proto.podresources.v1.ContainerMemory;
import io.acceld.proto.podresources.v1.ContainerResources;
import io.acceld.proto.podresources.v1.DynamicResource;
import io.acceld.proto.podresources.v1.GetPodResourcesRequest;
import io.acceld.proto.podresources.v1.GetPodResourcesResponse;
import io.acceld.proto.podresources.v1.ListPodResourcesResponse;
import io.acceld.proto.podresources.v1.NUMANode;
import io.acceld.proto.podresources.v1.PodResources;
import io.acceld.proto.podresources.v1.PodResourcesListerGrpc;
import io.acceld.proto.podresources.v1.TopologyInfo;
import org.junit.jupiter.api.Test;

/** Golden bytes for the kubelet pod-resources API (package v1). */
class PodResourcesWireTest {

  private static TopologyInfo numa(long... ids) {
    TopologyInfo.Builder t = TopologyInfo.newBuilder();
    for (long id : ids) {
      t.addNodes(NUMANode.newBuilder().setID(id));
    }
    return t.build();
  }

  @Test
  void listResponseWithContainerDeviceTopologyAndPodLevelFields() throws Exception {
    // NUMA node 0 encodes as an empty NUMANode; repeated int64 is packed in proto3.
    byte[] devices =
        concat(
            field(1, string("acceld.io/gpu")),
            field(2, string("GPU-0")),
            field(2, string("GPU-1")),
            field(3, message(field(1, message()), field(1, message(field(1, varint(1)))))));
    byte[] container =
        concat(field(1, string("main")), field(2, message(devices)), field(3, packed(2, 3)));
    byte[] podMemory =
        concat(
            field(1, string("memory")),
            field(2, varint(1L << 30)),
            field(3, message(field(1, message(field(1, varint(1)))))));
    byte[] pod =
        concat(
            field(1, string("trainer-0")),
            field(2, string("ml")),
            field(3, message(container)),
            field(4, packed(4, 5)),
            field(5, message(podMemory)));
    byte[] golden = field(1, message(pod));

    ListPodResourcesResponse built =
        ListPodResourcesResponse.newBuilder()
            .addPodResources(
                PodResources.newBuilder()
                    .setName("trainer-0")
                    .setNamespace("ml")
                    .addContainers(
                        ContainerResources.newBuilder()
                            .setName("main")
                            .addDevices(
                                ContainerDevices.newBuilder()
                                    .setResourceName("acceld.io/gpu")
                                    .addDeviceIds("GPU-0")
                                    .addDeviceIds("GPU-1")
                                    .setTopology(numa(0, 1)))
                            .addCpuIds(2)
                            .addCpuIds(3))
                    .addCpuIds(4)
                    .addCpuIds(5)
                    .addMemory(
                        ContainerMemory.newBuilder()
                            .setMemoryType("memory")
                            .setSize(1L << 30)
                            .setTopology(numa(1))))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    PodResources parsed = ListPodResourcesResponse.parseFrom(golden).getPodResources(0);
    assertThat(parsed.getName()).isEqualTo("trainer-0");
    assertThat(parsed.getNamespace()).isEqualTo("ml");
    assertThat(parsed.getCpuIdsList()).containsExactly(4L, 5L);
    assertThat(parsed.getMemory(0).getSize()).isEqualTo(1L << 30);
    assertThat(parsed.getMemory(0).getTopology().getNodes(0).getID()).isEqualTo(1L);
    ContainerResources c = parsed.getContainers(0);
    assertThat(c.getName()).isEqualTo("main");
    assertThat(c.getCpuIdsList()).containsExactly(2L, 3L);
    ContainerDevices d = c.getDevices(0);
    assertThat(d.getResourceName()).isEqualTo("acceld.io/gpu");
    assertThat(d.getDeviceIdsList()).containsExactly("GPU-0", "GPU-1");
    assertThat(d.getTopology().getNodesList()).extracting(NUMANode::getID).containsExactly(0L, 1L);
    assertThat(ListPodResourcesResponse.parseFrom(golden)).isEqualTo(built);
  }

  @Test
  void unpackedCpuIdsFromAnOlderEncoderStillParse() throws Exception {
    // Parsers must accept both packed and one-tag-per-element encodings of repeated scalars.
    byte[] unpacked = concat(field(1, string("c")), field(3, varint(7)), field(3, varint(9)));
    assertThat(ContainerResources.parseFrom(unpacked).getCpuIdsList()).containsExactly(7L, 9L);
  }

  @Test
  void dynamicResourceWithClaimResourceAndShareId() throws Exception {
    byte[] claim =
        concat(
            field(1, message(field(1, string("acceld.io/gpu=GPU-0")))),
            field(2, string("gpu.acceld.io")),
            field(3, string("node-a")),
            field(4, string("gpu-0")),
            field(5, string("")));
    byte[] golden =
        concat(field(2, string("train")), field(3, string("ml")), field(4, message(claim)));

    DynamicResource built =
        DynamicResource.newBuilder()
            .setClaimName("train")
            .setClaimNamespace("ml")
            .addClaimResources(
                ClaimResource.newBuilder()
                    .addCdiDevices(CDIDevice.newBuilder().setName("acceld.io/gpu=GPU-0"))
                    .setDriverName("gpu.acceld.io")
                    .setPoolName("node-a")
                    .setDeviceName("gpu-0")
                    // optional: an explicitly set empty share_id is still written (field 5).
                    .setShareId(""))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    ClaimResource parsed = DynamicResource.parseFrom(golden).getClaimResources(0);
    assertThat(parsed.hasShareId()).isTrue();
    assertThat(parsed.getShareId()).isEmpty();
    assertThat(parsed.getDriverName()).isEqualTo("gpu.acceld.io");
    assertThat(parsed.getPoolName()).isEqualTo("node-a");
    assertThat(parsed.getDeviceName()).isEqualTo("gpu-0");
    assertThat(parsed.getCdiDevices(0).getName()).isEqualTo("acceld.io/gpu=GPU-0");

    ClaimResource withoutShare = parsed.toBuilder().clearShareId().build();
    assertThat(withoutShare.hasShareId()).isFalse();
    assertThat(withoutShare.toByteArray()).hasSize(claim.length - 2);
  }

  @Test
  void getRequestAndResponse() throws Exception {
    byte[] request = concat(field(1, string("trainer-0")), field(2, string("ml")));
    GetPodResourcesRequest req =
        GetPodResourcesRequest.newBuilder().setPodName("trainer-0").setPodNamespace("ml").build();
    assertThat(req.toByteArray()).isEqualTo(request);
    assertThat(GetPodResourcesRequest.parseFrom(request)).isEqualTo(req);

    byte[] response = field(1, message(field(1, string("trainer-0")), field(2, string("ml"))));
    GetPodResourcesResponse resp =
        GetPodResourcesResponse.newBuilder()
            .setPodResources(PodResources.newBuilder().setName("trainer-0").setNamespace("ml"))
            .build();
    assertThat(resp.toByteArray()).isEqualTo(response);
    assertThat(GetPodResourcesResponse.parseFrom(response).getPodResources().getName())
        .isEqualTo("trainer-0");
  }

  @Test
  void allocatableResourcesResponse() throws Exception {
    byte[] golden =
        concat(
            field(1, message(field(1, string("acceld.io/gpu")), field(2, string("GPU-0")))),
            field(2, packed(0, 1, 2, 3)),
            field(3, message(field(1, string("hugepages-2Mi")), field(2, varint(2L << 20)))));
    AllocatableResourcesResponse built =
        AllocatableResourcesResponse.newBuilder()
            .addDevices(
                ContainerDevices.newBuilder()
                    .setResourceName("acceld.io/gpu")
                    .addDeviceIds("GPU-0"))
            .addCpuIds(0)
            .addCpuIds(1)
            .addCpuIds(2)
            .addCpuIds(3)
            .addMemory(
                ContainerMemory.newBuilder().setMemoryType("hugepages-2Mi").setSize(2L << 20))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);
    assertThat(AllocatableResourcesResponse.parseFrom(golden)).isEqualTo(built);
  }

  @Test
  void grpcServiceAndMethodNames() {
    assertThat(PodResourcesListerGrpc.SERVICE_NAME).isEqualTo("v1.PodResourcesLister");
    assertThat(PodResourcesListerGrpc.getListMethod().getFullMethodName())
        .isEqualTo("v1.PodResourcesLister/List");
    assertThat(PodResourcesListerGrpc.getGetAllocatableResourcesMethod().getFullMethodName())
        .isEqualTo("v1.PodResourcesLister/GetAllocatableResources");
    assertThat(PodResourcesListerGrpc.getGetMethod().getFullMethodName())
        .isEqualTo("v1.PodResourcesLister/Get");
    assertThat(PodResourcesListerGrpc.getServiceDescriptor().getMethods()).hasSize(3);
  }

  @Test
  void sharedMessageNamesLiveInTheirOwnPackages() {
    assertThat(TopologyInfo.getDescriptor().getFullName()).isEqualTo("v1.TopologyInfo");
    assertThat(io.acceld.proto.deviceplugin.v1beta1.TopologyInfo.getDescriptor().getFullName())
        .isEqualTo("v1beta1.TopologyInfo");
    assertThat(CDIDevice.getDescriptor().getFullName()).isEqualTo("v1.CDIDevice");
  }
}
