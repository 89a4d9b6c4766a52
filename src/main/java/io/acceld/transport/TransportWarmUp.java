package io.acceld.transport;

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
import java.util.concurrent.TimeUnit;
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
 * long) is one DEBUG line, and the agent starts as it would have. Closing this closes the
 * transport, once it is made.
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

  private final CompletableFuture<UnixGrpc> transport = new CompletableFuture<>();
  private final CompletableFuture<Boolean> called = new CompletableFuture<>();

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
              warmUp.called.complete(run(grpc, dir));
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
    transport.thenAccept(UnixGrpc::close);
  }

  /** The warm-up itself, on the caller's thread; true if the call came back. */
  static boolean run(UnixGrpc grpc, Path dir) {
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
      server = grpc.startServer(socket, List.of(echo), List.of(), Runnable::run);
      channel = grpc.channel(socket);
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
      if (channel != null) {
        channel.shutdownNow();
      }
      if (server != null) {
        server.shutdownNow();
      }
      try {
        Files.deleteIfExists(socket);
      } catch (IOException e) {
        log.debug("Could not remove {}: {}", socket, e.toString());
      }
    }
  }
}
