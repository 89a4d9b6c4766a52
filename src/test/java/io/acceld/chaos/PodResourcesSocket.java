package io.acceld.chaos;

import io.acceld.kubelet.podresources.FakePodResources;
import io.acceld.transport.UnixGrpc;
import io.grpc.Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The kubelet's pod-resources API on a real Unix socket, which a test can take away (server
 * stopped, socket file removed, as when the kubelet is down) and bring back.
 */
final class PodResourcesSocket implements AutoCloseable {
  private final Path socket;
  private final FakePodResources service = new FakePodResources();
  private final UnixGrpc grpc = new UnixGrpc("chaos-podresources", 1);
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private Server server; // the test thread only

  PodResourcesSocket(Path socket) {
    this.socket = socket;
  }

  Path path() {
    return socket;
  }

  FakePodResources service() {
    return service;
  }

  boolean serving() {
    return server != null;
  }

  void serve() throws IOException {
    Files.createDirectories(socket.getParent());
    server = grpc.startServer(socket, List.of(service), List.of(), executor);
  }

  void takeAway() throws IOException, InterruptedException {
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server = null;
    }
    Files.deleteIfExists(socket);
  }

  @Override
  public void close() throws Exception {
    takeAway();
    grpc.close();
    executor.shutdownNow();
  }
}
