package io.acceld.transport;

import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A device plugin served by one of our gRPC servers on a real Unix socket, and a channel to it, for
 * the transport's tests; {@link #close} ends the channel, the server and the transport.
 */
final class ServedPlugin implements AutoCloseable {
  private final UnixGrpc grpc;
  private final ExecutorService executor = Executors.newFixedThreadPool(2);
  private Server server;
  private ManagedChannel channel;

  ServedPlugin(String threadPrefix) {
    this.grpc = new UnixGrpc(threadPrefix, 1);
  }

  /** Serves {@code plugin} on {@code socket}; the channel to it. */
  ManagedChannel serve(Path socket, BindableService plugin) throws IOException {
    server = grpc.startServer(socket, List.of(plugin), List.of(), executor);
    channel = grpc.channel(socket);
    return channel;
  }

  /** A plugin whose Allocate answers an empty response. */
  static DevicePluginGrpc.DevicePluginImplBase answeringAllocate() {
    return new DevicePluginGrpc.DevicePluginImplBase() {
      @Override
      public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
        out.onNext(AllocateResponse.getDefaultInstance());
        out.onCompleted();
      }
    };
  }

  @Override
  public void close() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    executor.shutdownNow();
    grpc.close();
  }
}
