package io.acceld.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.testing.LogCapture;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that sends bytes which are not the method's protobuf message, over the real Unix-socket
 * gRPC transport: it must get INVALID_ARGUMENT, the log one line without a stack trace.
 */
class MalformedRequestsIT {
  @TempDir Path dir;

  private final ServedPlugin served = new ServedPlugin("test-malformed");
  private final List<LogRecord> grpcLogs = new ArrayList<>();
  private final Handler grpcLogHandler =
      new Handler() {
        @Override
        public synchronized void publish(LogRecord record) {
          grpcLogs.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private ManagedChannel channel;

  @BeforeEach
  void start() throws IOException {
    java.util.logging.Logger.getLogger("io.grpc").addHandler(grpcLogHandler);
    channel = served.serve(dir.resolve("plugin.sock"), ServedPlugin.answeringAllocate());
  }

  @AfterEach
  void stop() throws InterruptedException {
    java.util.logging.Logger.getLogger("io.grpc").removeHandler(grpcLogHandler);
    served.close();
  }

  @Test
  void bytesThatAreNotTheMessageGetInvalidArgumentAndOneLogLineWithoutAStackTrace() {
    try (LogCapture logs = LogCapture.of(MalformedRequests.class)) {
      for (int i = 0; i < 50; i++) {
        StatusRuntimeException e =
            sendRaw(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0a});
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(e.getStatus().getDescription())
            .contains("v1beta1.DevicePlugin/Allocate")
            .contains("not a valid");
      }

      assertThat(logs.warnings()).hasSize(1);
      assertThat(logs.warnings().get(0)).contains("Refused a malformed").contains("Allocate");
      assertThat(grpcLogs).allSatisfy(r -> assertThat(r.getThrown()).isNull());
    }
  }

  @Test
  void aRequestOverTheSizeLimitIsRefusedUnparsedAndTheServerKeepsServing() {
    AllocateRequest.Builder huge = AllocateRequest.newBuilder();
    ContainerAllocateRequest.Builder ids = ContainerAllocateRequest.newBuilder();
    for (int i = 0; i < 40_000; i++) {
      ids.addDevicesIds("GPU-00000000-0000-0000-0000-" + String.format("%012d", i));
    }
    byte[] bytes = huge.addContainerRequests(ids).build().toByteArray();
    assertThat(bytes.length).isGreaterThan(UnixGrpc.MAX_REQUEST_BYTES);

    StatusRuntimeException e = sendRaw(bytes);
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    wellFormedRequestsStillReachTheService();
  }

  @Test
  void wellFormedRequestsStillReachTheService() {
    AllocateResponse response =
        DevicePluginGrpc.newBlockingStub(channel)
            .withDeadlineAfter(5, TimeUnit.SECONDS)
            .allocate(
                AllocateRequest.newBuilder()
                    .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds("a"))
                    .build());
    assertThat(response).isEqualTo(AllocateResponse.getDefaultInstance());
  }

  private StatusRuntimeException sendRaw(byte[] bytes) {
    MethodDescriptor<byte[], byte[]> raw =
        DevicePluginGrpc.getAllocateMethod().toBuilder(RawBytes.MARSHALLER, RawBytes.MARSHALLER)
            .build();
    try {
      ClientCalls.blockingUnaryCall(
          channel, raw, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), bytes);
    } catch (StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("malformed bytes were accepted");
  }
}
