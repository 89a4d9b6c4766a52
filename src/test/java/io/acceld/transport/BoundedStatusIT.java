package io.acceld.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every status a server of ours sends fits in the client's header limit, whatever it says. */
class BoundedStatusIT {
  @TempDir Path dir;

  private final ServedPlugin served = new ServedPlugin("test-bounded-status");

  @AfterEach
  void close() throws Exception {
    served.close();
  }

  private StatusRuntimeException failWith(String description) throws Exception {
    Path socket = dir.resolve("plugin.sock");
    DevicePluginGrpc.DevicePluginImplBase plugin =
        new DevicePluginGrpc.DevicePluginImplBase() {
          @Override
          public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
            out.onError(
                Status.FAILED_PRECONDITION.withDescription(description).asRuntimeException());
          }
        };
    ManagedChannel channel = served.serve(socket, plugin);
    Throwable thrown =
        org.assertj.core.api.Assertions.catchThrowable(
            () ->
                DevicePluginGrpc.newBlockingStub(channel)
                    .allocate(AllocateRequest.getDefaultInstance()));
    assertThat(thrown).isInstanceOf(StatusRuntimeException.class);
    return (StatusRuntimeException) thrown;
  }

  @Test
  void aHugeStatusMessageArrivesCutToOneKibWithHowMuchWasLeftOut() throws Exception {
    String huge = "device GPU-é is held by a pod; ".repeat(10_000); // 320,000 characters
    StatusRuntimeException e = failWith(huge);

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    String got = e.getStatus().getDescription();
    assertThat(got.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024);
    assertThat(got).startsWith("device GPU-é is held by a pod; ").endsWith(" more characters)");
  }

  @Test
  void aShortStatusMessageIsUntouched() throws Exception {
    assertThat(failWith("device GPU-1 is held by Mesos task f/t").getStatus().getDescription())
        .isEqualTo("device GPU-1 is held by Mesos task f/t");
  }

  @Test
  void boundingKeepsWholeCharacters() {
    String emoji = "\uD83D\uDE00".repeat(2_000); // 4 UTF-8 bytes each
    String bounded = BoundedStatus.bound(emoji);
    assertThat(bounded.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024);
    assertThat(Character.isHighSurrogate(bounded.charAt(bounded.indexOf("...") - 1))).isFalse();
    assertThatThrownBy(() -> BoundedStatus.bound(null)).isInstanceOf(NullPointerException.class);
  }
}
