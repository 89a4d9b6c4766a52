package io.acceld.testing.kubelet;

import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * One connection the double dialled to a plugin's DevicePlugin socket: the kubelet's {@code
 * client}. Mutable fields are guarded by the owning {@link KubeletDouble}'s lock.
 */
final class PluginConnection {
  final String resource;
  final Path socket;
  final ManagedChannel channel;
  final Channel counted;

  /** Set once the registration completed. */
  Registration registration;

  /** The previous kubelet "process" owned this connection: its end is nobody's business now. */
  boolean abandoned;

  /** The kubelet already disconnected it (deregistration); its stream end changes nothing. */
  boolean disconnected;

  Instant firstUpdateAt;
  Status streamEnd;
  Instant streamEndedAt;

  PluginConnection(String resource, Path socket, ManagedChannel channel, Channel counted) {
    this.resource = resource;
    this.socket = socket;
    this.channel = channel;
    this.counted = counted;
  }

  DevicePluginGrpc.DevicePluginBlockingStub blocking() {
    return DevicePluginGrpc.newBlockingStub(counted);
  }

  /** Closes the connection like grpc-go's {@code conn.Close()}: at once, failing open calls. */
  void close() {
    channel.shutdownNow();
  }

  void awaitClosed() throws InterruptedException {
    channel.awaitTermination(5, TimeUnit.SECONDS);
  }

  @Override
  public String toString() {
    return resource + "@" + socket;
  }
}
