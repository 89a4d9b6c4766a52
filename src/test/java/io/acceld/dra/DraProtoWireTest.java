package io.acceld.dra;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.acceld.proto.dra.v1.DRAPluginGrpc;
import io.acceld.proto.drahealth.v1alpha1.DRAResourceHealthGrpc;
import io.acceld.proto.drahealth.v1alpha1.DeviceHealth;
import io.acceld.proto.drahealth.v1alpha1.HealthStatus;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The wire contract of the DRA protos, from dra.md's field tables: the gRPC paths the kubelet calls
 * and every field's number, name and type. A renamed package or a renumbered field breaks the
 * kubelet silently; this breaks here.
 */
class DraProtoWireTest {
  @Test
  void methodPathsAreTheKubeletsOwn() {
    assertThat(DRAPluginGrpc.getNodePrepareResourcesMethod().getFullMethodName())
        .isEqualTo("k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources");
    assertThat(DRAPluginGrpc.getNodeUnprepareResourcesMethod().getFullMethodName())
        .isEqualTo("k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources");
    assertThat(
            io.acceld.proto.dra.v1beta1.DRAPluginGrpc.getNodePrepareResourcesMethod()
                .getFullMethodName())
        .isEqualTo("k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources");
    assertThat(DRAResourceHealthGrpc.getNodeWatchResourcesMethod().getFullMethodName())
        .isEqualTo("v1alpha1.DRAResourceHealth/NodeWatchResources");
    assertThat(DRAResourceHealthGrpc.getNodeWatchResourcesMethod().getType())
        .isEqualTo(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING);
  }

  @Test
  void fieldsMatchTheTables() {
    assertThat(fields(io.acceld.proto.dra.v1.Device.getDescriptor()))
        .isEqualTo(
            "1 repeated string request_names, 2 string pool_name, 3 string device_name,"
                + " 4 repeated string cdi_device_ids, 5 optional string share_id");
    assertThat(fields(io.acceld.proto.dra.v1beta1.Device.getDescriptor()))
        .isEqualTo(
            "1 repeated string request_names, 2 string pool_name, 3 string device_name,"
                + " 4 repeated string cdi_device_ids");
    for (Descriptor claim :
        List.of(
            io.acceld.proto.dra.v1.Claim.getDescriptor(),
            io.acceld.proto.dra.v1beta1.Claim.getDescriptor())) {
      assertThat(fields(claim)).isEqualTo("1 string namespace, 2 string uid, 3 string name");
    }
    assertThat(fields(io.acceld.proto.dra.v1.NodePrepareResourceResponse.getDescriptor()))
        .isEqualTo("1 repeated message devices, 2 string error");
    assertThat(fields(io.acceld.proto.dra.v1.NodePrepareResourcesResponse.getDescriptor()))
        .isEqualTo("1 repeated message claims");
    assertThat(
            io.acceld.proto.dra.v1.NodePrepareResourcesResponse.getDescriptor()
                .findFieldByNumber(1)
                .isMapField())
        .isTrue();
    assertThat(fields(io.acceld.proto.dra.v1.NodeUnprepareResourceResponse.getDescriptor()))
        .isEqualTo("1 string error");
    assertThat(fields(DeviceHealth.getDescriptor()))
        .isEqualTo(
            "1 message device, 2 enum health, 3 int64 last_updated_time,"
                + " 4 int64 health_check_timeout_seconds, 5 string message");
    assertThat(HealthStatus.UNKNOWN.getNumber()).isZero();
    assertThat(HealthStatus.HEALTHY.getNumber()).isEqualTo(1);
    assertThat(HealthStatus.UNHEALTHY.getNumber()).isEqualTo(2);
  }

  private static String fields(Descriptor d) {
    return d.getFields().stream()
        .map(
            f ->
                f.getNumber()
                    + " "
                    + (f.isRepeated()
                        ? "repeated "
                        : f.hasPresence() && f.toProto().getProto3Optional() ? "optional " : "")
                    + type(f)
                    + " "
                    + f.getName())
        .collect(Collectors.joining(", "));
  }

  private static String type(FieldDescriptor f) {
    return f.getType().name().toLowerCase(java.util.Locale.ROOT);
  }
}
