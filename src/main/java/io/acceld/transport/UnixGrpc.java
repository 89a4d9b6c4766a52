package io.acceld.transport;

import io.acceld.util.NamedThreads;
import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * gRPC over Unix domain sockets, the kubelet's transport. Uses Netty's epoll transport where it
 * loads and the JDK's NIO domain sockets otherwise (musl, noexec tmp), so the agent never fails for
 * want of a native library. Owns its event loops; close it after the servers and channels it made.
 *
 * <p>Two traps are handled here once: a UDS server needs channel type and both event-loop groups
 * set together, and gRPC's default SO_KEEPALIVE must be removed (a UDS has none; Netty warns on
 * every connection otherwise). No keepalive, max-connection-age or idle limits are set: the kubelet
 * treats any end of ListAndWatch as the plugin going away. Requests that do not parse are answered
 * {@code INVALID_ARGUMENT} before any service sees them ({@link MalformedRequests}).
 */
public final class UnixGrpc implements AutoCloseable {
  /** Longest socket path the kernel accepts ({@code sun_path} is 108 bytes with the NUL). */
  public static final int MAX_SOCKET_PATH_BYTES = 107;

  private final boolean epoll;

  /**
   * Accepts and serves every server's connections and carries every channel. One group, not a boss
   * and a worker group: an idle Netty 4.2 event loop wakes every second (its scheduled-task purge),
   * and a separate accept thread was one more such wake-up, for a handful of connections a day.
   */
  private final EventLoopGroup workers;

  private final MalformedRequests malformed;

  /**
   * Runs the channels' call callbacks (a Register's answer), on threads that end after a minute
   * idle. Not gRPC's shared default: its thread factory names threads with {@code
   * String.format(Locale.ROOT, ...)}, which loads the JDK's locale data (~60 classes and a CLDR
   * bundle on the heap, 0.3 MiB of every node's RSS) for a thread name.
   */
  private final ExecutorService callbacks;

  public UnixGrpc(String threadPrefix, int workerThreads) {
    NettyProperties.install(); // before the first Netty class initializes
    this.malformed = new MalformedRequests();
    this.epoll = Epoll.isAvailable();
    this.workers =
        new MultiThreadIoEventLoopGroup(
            workerThreads, new DefaultThreadFactory(threadPrefix + "-io", true), ioFactory());
    this.callbacks = Executors.newCachedThreadPool(new NamedThreads(threadPrefix + "-calls"));
  }

  private io.grpc.netty.shaded.io.netty.channel.IoHandlerFactory ioFactory() {
    return epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
  }

  public boolean usesEpoll() {
    return epoll;
  }

  /** Checks a socket path before binding, so a too-long path fails with a message that says so. */
  public static void checkSocketPath(Path socket) throws IOException {
    int length = socket.toString().getBytes(StandardCharsets.UTF_8).length;
    if (length > MAX_SOCKET_PATH_BYTES) {
      throw new IOException(
          "socket path "
              + socket
              + " is "
              + length
              + " bytes; Unix sockets allow at most "
              + MAX_SOCKET_PATH_BYTES);
    }
  }

  /**
   * The largest request a server accepts. The kubelet's biggest, an Allocate or
   * GetPreferredAllocation listing every advertised ID, is about 50 bytes an ID: 1,024 replicas are
   * some 50 KiB. gRPC's default (4 MiB) let one hostile call make the transport parse megabytes.
   */
  public static final int MAX_REQUEST_BYTES = 1 << 20;

  private SocketAddress address(Path socket) {
    return epoll ? new DomainSocketAddress(socket.toString()) : UnixDomainSocketAddress.of(socket);
  }

  /**
   * Starts a server on {@code socket}. The caller removes any stale file first (the epoll bind
   * would silently replace it, the NIO bind would fail).
   */
  private static final ServerInterceptor BOUNDED_STATUS = new BoundedStatus();

  public Server startServer(
      Path socket,
      List<BindableService> services,
      List<ServerInterceptor> interceptors,
      Executor executor)
      throws IOException {
    checkSocketPath(socket);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(address(socket))
            .channelType(
                epoll ? EpollServerDomainSocketChannel.class : NioServerDomainSocketChannel.class)
            .bossEventLoopGroup(workers)
            .workerEventLoopGroup(workers)
            .withChildOption(ChannelOption.SO_KEEPALIVE, null)
            .maxInboundMessageSize(MAX_REQUEST_BYTES)
            .executor(executor);
    List<ServerInterceptor> all = new ArrayList<>(interceptors);
    all.add(BOUNDED_STATUS); // added last, so outermost: every status leaves through it
    for (BindableService service : services) {
      builder.addService(ServerInterceptors.intercept(malformed.guard(service.bindService()), all));
    }
    return builder.build().start();
  }

  /** A plaintext channel to a server on {@code socket}. */
  public ManagedChannel channel(Path socket) {
    return NettyChannelBuilder.forAddress(address(socket))
        .channelType(
            epoll ? EpollDomainSocketChannel.class : NioDomainSocketChannel.class,
            epoll ? DomainSocketAddress.class : UnixDomainSocketAddress.class)
        .eventLoopGroup(workers)
        .withOption(ChannelOption.SO_KEEPALIVE, null)
        .overrideAuthority("localhost")
        .usePlaintext()
        .executor(callbacks)
        .build();
  }

  @Override
  public void close() {
    callbacks.shutdown();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
