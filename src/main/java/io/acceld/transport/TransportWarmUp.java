package io.acceld.transport;

import io.acceld.util.GuardedBy;
import io.acceld.util.NamedThreads;
import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's transport ({@link UnixGrpc}), made on a thread of its own while the agent's first
 * scan runs on the main one, and warmed there by one gRPC call from a client to a server over a
 * throwaway Unix socket. The transport's event loops and native epoll, and the first server,
 * connection, HTTP/2 exchange and call of a JVM, each initialize hundreds of Netty and gRPC classes
 * and run their code cold: without this, that work sat between the first scan and the kubelet's
 * Register (~25 ms to make the transport, 40-80 ms to serve and dial, and as much again to answer
 * the kubelet's dial-back, on a 2-core node). With it, the second core does it meanwhile.
 *
 * <p>The call decides nothing: one that fails (a state directory that takes no sockets, a path too
 * long) is one DEBUG line, and the agent starts as it would have. Closing this cancels a call still
 * under way, waits for its channel and server to finish on the transport's event loops, then closes
 * the transport (once it is made). In that order because an agent that exits early (a metrics port
 * in use) would otherwise shut the loops under a live call, and Netty and gRPC would each log a
 * stack trace for work the loops then refused.
 */
public final class TransportWarmUp implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TransportWarmUp.class);

  /** The socket's file name in the directory given: the agent's own state directory. */
  static final String SOCKET_NAME = "acceld-warm-up.sock";

  static final MethodDescriptor<byte[], byte[]> ECHO =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("acceld.transport.WarmUp/Echo")
          .setRequestMarshaller(RawBytes.MARSHALLER)
          .setResponseMarshaller(RawBytes.MARSHALLER)
          .build();

  /** How long closing waits for a cancelled call to wind down before it closes the loops. */
  private static final long WIND_DOWN_SECONDS = 2;

  private final CompletableFuture<UnixGrpc> transport = new CompletableFuture<>();
  private final CompletableFuture<Boolean> called = new CompletableFuture<>();
  private final Object lock = new Object();

  @GuardedBy("lock")
  private boolean closing;

  @GuardedBy("lock")
  private Server server;

  @GuardedBy("lock")
  private ManagedChannel channel;

  private TransportWarmUp() {}

  /**
   * Makes the transport ({@code new UnixGrpc(threadPrefix, workerThreads)}) and warms it on a
   * daemon thread of its own. The socket goes in {@code dir}, which must be the agent's alone (it
   * is removed afterwards).
   */
  public static TransportWarmUp start(String threadPrefix, int workerThreads, Path dir) {
    TransportWarmUp warmUp = new TransportWarmUp();
    new NamedThreads("acceld-warm-up")
        .newThread(
            () -> {
              UnixGrpc grpc;
              try {
                grpc = new UnixGrpc(threadPrefix, workerThreads);
              } catch (RuntimeException | Error e) {
                warmUp.transport.completeExceptionally(e);
                warmUp.called.complete(false);
                throw e;
              }
              warmUp.transport.complete(grpc);
              warmUp.called.complete(warmUp.call(grpc, dir));
            })
        .start();
    return warmUp;
  }

  /** The transport, waiting for it to be made (the warm-up call goes on meanwhile). */
  public UnixGrpc transport() {
    try {
      return transport.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** Whether the warm-up call came back, waiting for it to end. */
  boolean awaitCall() {
    return called.join();
  }

  @Override
  public void close() {
    synchronized (lock) {
      closing = true;
      if (channel != null) {
        channel.shutdownNow();
      }
      if (server != null) {
        server.shutdownNow();
      }
    }
    try {
      called.get(WIND_DOWN_SECONDS * 2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.debug("The transport's warm-up did not wind down before closing: {}", e.toString());
    }
    transport.thenAccept(UnixGrpc::close);
  }

  /**
   * One warm-up call on the caller's thread, with a transport made elsewhere; true if it came back.
   */
  static boolean run(UnixGrpc grpc, Path dir) {
    return new TransportWarmUp().call(grpc, dir);
  }

  /** The warm-up itself, on the caller's thread; true if the call came back. */
  private boolean call(UnixGrpc grpc, Path dir) {
    Path socket = dir.resolve(SOCKET_NAME);
    Server server = null;
    ManagedChannel channel = null;
    try {
      Files.deleteIfExists(socket);
      BindableService echo =
          () ->
              ServerServiceDefinition.builder("acceld.transport.WarmUp")
                  .addMethod(
                      ECHO,
                      ServerCalls.asyncUnaryCall(
                          (request, response) -> {
                            response.onNext(request);
                            response.onCompleted();
                          }))
                  .build();
      synchronized (lock) {
        if (closing) {
          return false;
        }
        // Made under the lock, so that close() either sees them or stops them being made.
        server = grpc.startServer(socket, List.of(echo), List.of(), Runnable::run);
        channel = grpc.channel(socket);
        this.server = server;
        this.channel = channel;
      }
      byte[] reply =
          ClientCalls.blockingUnaryCall(
              channel,
              ECHO,
              io.grpc.CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
              new byte[] {1});
      return reply.length == 1;
    } catch (IOException | RuntimeException e) {
      log.debug(
          "The transport's warm-up call failed (the agent starts as it would have): {}",
          e.toString());
      return false;
    } finally {
      windDown(channel, server);
      try {
        Files.deleteIfExists(socket);
      } catch (IOException e) {
        log.debug("Could not remove {}: {}", socket, e.toString());
      }
    }
  }

  /** Stops both ends and waits, bounded, until neither has work left on the event loops. */
  private static void windDown(ManagedChannel channel, Server server) {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.shutdownNow();
    }
    try {
      if (channel != null && !channel.awaitTermination(WIND_DOWN_SECONDS, TimeUnit.SECONDS)) {
        log.debug("The transport's warm-up channel did not terminate in {} s", WIND_DOWN_SECONDS);
      }
      if (server != null && !server.awaitTermination(WIND_DOWN_SECONDS, TimeUnit.SECONDS)) {
        log.debug("The transport's warm-up server did not terminate in {} s", WIND_DOWN_SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
