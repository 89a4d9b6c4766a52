package io.acceld.transport;

import io.acceld.util.AtomicFiles;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gRPC server on its Unix socket (a device plugin's resource, the DRA plugin): takes the
 * socket's lock, removes a stale socket, listens, and can stop and listen again (what a kubelet
 * restart requires). Remembers the socket's inode so that a socket deleted or replaced by someone
 * else is noticed.
 */
public final class UnixSocketServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(UnixSocketServer.class);

  private final String name;
  private final Path socket;
  private final List<BindableService> services;
  private final List<ServerInterceptor> interceptors;
  private final UnixGrpc grpc;
  private final Executor executor;

  private SocketLock lock;
  private Server server;
  private SocketIdentity socketKey;

  public UnixSocketServer(
      String name,
      Path socket,
      List<BindableService> services,
      List<ServerInterceptor> interceptors,
      UnixGrpc grpc,
      Executor executor) {
    this(name, socket, services, interceptors, grpc, executor, null);
  }

  /**
   * As above, with the socket's lock already taken (the publisher takes it before it writes the
   * resource's CDI spec); the server releases it on close.
   */
  public UnixSocketServer(
      String name,
      Path socket,
      List<BindableService> services,
      List<ServerInterceptor> interceptors,
      UnixGrpc grpc,
      Executor executor,
      SocketLock lock) {
    this.lock = lock;
    this.name = name;
    this.socket = socket;
    this.services = List.copyOf(services);
    this.interceptors = List.copyOf(interceptors);
    this.grpc = grpc;
    this.executor = executor;
  }

  public Path socket() {
    return socket;
  }

  public String name() {
    return name;
  }

  /** Whether this server holds its socket's lock, without which it must not touch shared files. */
  public synchronized boolean holdsLock() {
    return lock != null;
  }

  public synchronized boolean isServing() {
    return server != null && !server.isShutdown();
  }

  /** Starts serving; a no-op if already serving. */
  public synchronized void start() throws IOException {
    if (isServing()) {
      return;
    }
    if (lock == null) {
      lock = SocketLock.acquire(socket);
    }
    Files.deleteIfExists(socket);
    server = grpc.startServer(socket, services, interceptors, executor);
    // The process mask already made it owner-only; say so explicitly for any other embedding.
    Files.setPosixFilePermissions(socket, AtomicFiles.OWNER_ONLY);
    socketKey = SocketIdentity.of(socket);
    log.info("Serving {} on {}", name, socket);
  }

  /** Stops the server, which ends its streams, and removes its socket if it is still ours. */
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    server.shutdownNow();
    try {
      if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
        log.warn("The {} server did not stop within 2 s", name);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server = null;
    try {
      if (socketKey != null && socketKey.equals(SocketIdentity.of(socket))) {
        Files.deleteIfExists(socket);
      }
    } catch (IOException e) {
      log.debug("Could not remove {}: {}", socket, e.toString());
    }
    socketKey = null;
  }

  /** Whether our socket file is still the one we created (not deleted, not replaced). */
  public synchronized boolean socketIntact() {
    return socketKey != null && socketKey.equals(SocketIdentity.of(socket));
  }

  @Override
  public synchronized void close() {
    stop();
    if (lock != null) {
      try {
        lock.close();
      } catch (IOException e) {
        log.debug("Could not release the lock of {}: {}", socket, e.toString());
      }
      lock = null;
    }
  }
}
