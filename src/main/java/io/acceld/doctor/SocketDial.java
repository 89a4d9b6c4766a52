package io.acceld.doctor;

import io.acceld.transport.UnixGrpc;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Dials a gRPC server on a Unix socket as the kubelet's peers do, and makes no call: a plain
 * connect first (which says "refused" or "permission denied" in words), then a gRPC channel that
 * must become READY, which takes the server's HTTP/2 handshake. A socket nobody serves, or a server
 * that accepts and never speaks, is caught without sending a single RPC.
 */
final class SocketDial {
  private SocketDial() {}

  /** Empty when a gRPC connection came up within {@code limit}; otherwise what went wrong. */
  static Optional<String> dial(UnixGrpc grpc, Path socket, Duration limit) {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(socket));
    } catch (IOException e) {
      return Optional.of("connecting fails: " + e.getMessage());
    }
    ManagedChannel channel = grpc.channel(socket);
    try {
      long deadline = System.nanoTime() + limit.toNanos();
      ConnectivityState state = channel.getState(true);
      while (state != ConnectivityState.READY) {
        if (state == ConnectivityState.TRANSIENT_FAILURE || state == ConnectivityState.SHUTDOWN) {
          return Optional.of("it accepts a connection but no gRPC connection comes up");
        }
        CountDownLatch changed = new CountDownLatch(1);
        channel.notifyWhenStateChanged(state, changed::countDown);
        long left = deadline - System.nanoTime();
        if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
          return Optional.of(
              "it accepts a connection but no gRPC handshake completes within "
                  + Bounded.shown(limit));
        }
        state = channel.getState(false);
      }
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted while dialling");
    } finally {
      channel.shutdownNow();
    }
  }
}
