package io.acceld.proto;

import static io.acceld.proto.Wire.concat;
import static io.acceld.proto.Wire.field;
import static io.acceld.proto.Wire.hex;
import static io.acceld.proto.Wire.string;
import static io.acceld.proto.Wire.varint;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.proto.pluginregistration.InfoRequest;
import io.acceld.proto.pluginregistration.PluginInfo;
import io.acceld.proto.pluginregistration.RegistrationGrpc;
import io.acceld.proto.pluginregistration.RegistrationStatus;
import org.junit.jupiter.api.Test;

/** Golden bytes for the kubelet plugin-watcher registration API (package pluginregistration). */
class PluginRegistrationWireTest {

  @Test
  void pluginInfoWithSupportedVersions() throws Exception {
    byte[] golden =
        concat(
            field(1, string("DevicePlugin")),
            field(2, string("acceld.io/gpu")),
            field(3, string("/var/lib/kubelet/plugins_registry/acceld-gpu.sock")),
            field(4, string("v1beta1")),
            field(4, string("v1")));

    PluginInfo built =
        PluginInfo.newBuilder()
            .setType("DevicePlugin")
            .setName("acceld.io/gpu")
            .setEndpoint("/var/lib/kubelet/plugins_registry/acceld-gpu.sock")
            .addSupportedVersions("v1beta1")
            .addSupportedVersions("v1")
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    PluginInfo parsed = PluginInfo.parseFrom(golden);
    assertThat(parsed.getType()).isEqualTo("DevicePlugin");
    assertThat(parsed.getName()).isEqualTo("acceld.io/gpu");
    assertThat(parsed.getEndpoint()).isEqualTo("/var/lib/kubelet/plugins_registry/acceld-gpu.sock");
    assertThat(parsed.getSupportedVersionsList()).containsExactly("v1beta1", "v1");
    assertThat(parsed).isEqualTo(built);
  }

  @Test
  void pluginInfoWithEmptyEndpointOmitsField3() throws Exception {
    // type=1 "DevicePlugin", supported_versions=4 "v1beta1"; empty name/endpoint are not written.
    byte[] golden = hex("0a 0c 446576696365506c7567696e 22 07 7631626574 6131");
    PluginInfo built =
        PluginInfo.newBuilder().setType("DevicePlugin").addSupportedVersions("v1beta1").build();
    assertThat(built.toByteArray()).isEqualTo(golden);
    assertThat(PluginInfo.parseFrom(golden).getEndpoint()).isEmpty();
  }

  @Test
  void registrationStatusFields() throws Exception {
    byte[] failed = field(2, string("unsupported version"));
    RegistrationStatus failure =
        RegistrationStatus.newBuilder().setError("unsupported version").build();
    assertThat(failure.toByteArray()).isEqualTo(failed);
    assertThat(RegistrationStatus.parseFrom(failed).getPluginRegistered()).isFalse();

    byte[] ok = field(1, varint(1));
    RegistrationStatus success = RegistrationStatus.parseFrom(ok);
    assertThat(success.getPluginRegistered()).isTrue();
    assertThat(success.getError()).isEmpty();
    assertThat(success.toByteArray()).isEqualTo(ok);

    assertThat(InfoRequest.getDefaultInstance().toByteArray()).isEmpty();
  }

  @Test
  void grpcServiceAndMethodNames() {
    assertThat(RegistrationGrpc.SERVICE_NAME).isEqualTo("pluginregistration.Registration");
    assertThat(RegistrationGrpc.getGetInfoMethod().getFullMethodName())
        .isEqualTo("pluginregistration.Registration/GetInfo");
    assertThat(RegistrationGrpc.getNotifyRegistrationStatusMethod().getFullMethodName())
        .isEqualTo("pluginregistration.Registration/NotifyRegistrationStatus");
    assertThat(RegistrationGrpc.getServiceDescriptor().getMethods()).hasSize(2);
  }
}
