package io.acceld.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A channel's answers reach their observer on the transport's own named threads, not on gRPC's
 * shared {@code grpc-default-executor}, which names its threads through the JDK's locale data.
 */
class ChannelCallbacksIT {
  @TempDir Path dir;

  private final ServedPlugin plugin = new ServedPlugin("test-callbacks");

  @AfterEach
  void close() throws Exception {
    plugin.close();
  }

  @Test
  void anAsyncCallsAnswerArrivesOnTheTransportsNamedCallbackThread() throws Exception {
    ManagedChannel channel =
        plugin.serve(dir.resolve("plugin.sock"), ServedPlugin.answeringAllocate());
    CompletableFuture<String> answeredOn = new CompletableFuture<>();
    DevicePluginGrpc.newStub(channel)
        .allocate(
            AllocateRequest.getDefaultInstance(),
            new StreamObserver<>() {
              @Override
              public void onNext(AllocateResponse value) {}

              @Override
              public void onError(Throwable t) {
                answeredOn.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                answeredOn.complete(Thread.currentThread().getName());
              }
            });

    assertThat(answeredOn.get(10, TimeUnit.SECONDS)).matches("test-callbacks-calls-\\d+");
  }
}
