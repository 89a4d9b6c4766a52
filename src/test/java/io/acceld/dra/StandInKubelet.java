package io.acceld.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.proto.dra.v1.DRAPluginGrpc;
import io.acceld.proto.dra.v1.NodePrepareResourcesRequest;
import io.acceld.proto.dra.v1.NodePrepareResourcesResponse;
import io.acceld.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.acceld.proto.dra.v1.NodeUnprepareResourcesResponse;
import io.acceld.proto.drahealth.v1alpha1.DRAResourceHealthGrpc;
import io.acceld.proto.drahealth.v1alpha1.NodeWatchResourcesRequest;
import io.acceld.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.acceld.proto.pluginregistration.InfoRequest;
import io.acceld.proto.pluginregistration.PluginInfo;
import io.acceld.proto.pluginregistration.RegistrationGrpc;
import io.acceld.proto.pluginregistration.RegistrationStatus;
import io.acceld.testing.Waits;
import io.acceld.transport.UnixGrpc;
import io.grpc.ConnectivityState;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The kubelet's side of DRA as a 1.34+ kubelet does it, over the real Unix sockets: watches the
 * plugins registry for a socket, dials it (blocking, 10 s), GetInfo with a 1 s deadline, checks the
 * type, takes the first supported version it knows ({@code v1.DRAPlugin} before {@code
 * v1beta1.DRAPlugin}), says it registered, and then calls the endpoint through either API version
 * (45 s deadlines, as the kubelet) and holds a NodeWatchResources stream.
 */
public final class StandInKubelet implements AutoCloseable {
  static final List<String> KNOWN = List.of("v1.DRAPlugin", "v1beta1.DRAPlugin");
  static final Duration DIAL = Duration.ofSeconds(10);
  static final Duration GET_INFO = Duration.ofSeconds(1);
  static final Duration NOTIFY = Duration.ofSeconds(5);
  static final Duration CALL = Duration.ofSeconds(45);

  private final Path registry;
  private final UnixGrpc grpc = new UnixGrpc("stand-in-kubelet", 1);
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<Context.CancellableContext> streams = new ArrayList<>();

  public StandInKubelet(Path registry) {
    this.registry = registry;
  }

  /** What registration found. */
  public record Registered(Path socket, PluginInfo info, String version, ManagedChannel endpoint) {}

  /**
   * Waits for a registration socket to appear (a watch, not a poll), for {@code within} on an idle
   * machine scaled by {@link Waits}, and registers it with the kubelet's own deadlines.
   */
  public Registered register(Duration within) throws Exception {
    Path socket = awaitSocket(Waits.scaled(within));
    ManagedChannel reg = channel(socket);
    dial(reg, DIAL);
    PluginInfo info =
        RegistrationGrpc.newBlockingStub(reg)
            .withDeadlineAfter(GET_INFO.toMillis(), TimeUnit.MILLISECONDS)
            .getInfo(InfoRequest.getDefaultInstance());
    assertThat(info.getType()).as("plugin type").isEqualTo("DRAPlugin");
    String version =
        info.getSupportedVersionsList().stream()
            .filter(KNOWN::contains)
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "none of services supported by the plugin ("
                            + info.getSupportedVersionsList()
                            + ") are supported by the kubelet"));
    Path endpoint = info.getEndpoint().isEmpty() ? socket : Path.of(info.getEndpoint());
    assertThat(endpoint.isAbsolute()).as("endpoint is absolute").isTrue();
    RegistrationGrpc.newBlockingStub(reg)
        .withDeadlineAfter(NOTIFY.toMillis(), TimeUnit.MILLISECONDS)
        .notifyRegistrationStatus(
            RegistrationStatus.newBuilder().setPluginRegistered(true).build());
    return new Registered(socket, info, version, channel(endpoint));
  }

  /** The kubelet's blocking dial (10 s) before GetInfo, whose 1 s deadline covers the call only. */
  private static void dial(ManagedChannel channel, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    ConnectivityState state = channel.getState(true);
    while (state != ConnectivityState.READY) {
      CountDownLatch changed = new CountDownLatch(1);
      channel.notifyWhenStateChanged(state, changed::countDown);
      long left = deadline - System.nanoTime();
      if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
        throw new AssertionError("could not dial the registration socket within " + within);
      }
      state = channel.getState(true);
    }
  }

  /** Tells the plugin it was rejected, as the kubelet does when validation fails. */
  void reject(Path socket, String error) {
    RegistrationGrpc.newBlockingStub(channel(socket))
        .withDeadlineAfter(NOTIFY.toMillis(), TimeUnit.MILLISECONDS)
        .notifyRegistrationStatus(
            RegistrationStatus.newBuilder().setPluginRegistered(false).setError(error).build());
  }

  private Path awaitSocket(Duration within) throws IOException, InterruptedException {
    try (WatchService watch = FileSystems.getDefault().newWatchService()) {
      registry.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
      long deadline = System.nanoTime() + within.toNanos();
      while (true) {
        Optional<Path> found = registrationSocket();
        if (found.isPresent()) {
          return found.get();
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("no registration socket appeared in " + registry);
        }
        WatchKey key = watch.poll(left, TimeUnit.NANOSECONDS);
        if (key != null) {
          for (WatchEvent<?> ignored : key.pollEvents()) {
            // the directory is read again above
          }
          key.reset();
        }
      }
    }
  }

  private Optional<Path> registrationSocket() throws IOException {
    try (Stream<Path> files = Files.list(registry)) {
      return files
          .filter(p -> !p.getFileName().toString().startsWith("."))
          .filter(p -> p.getFileName().toString().endsWith("-reg.sock"))
          .filter(p -> !Files.isRegularFile(p) && !Files.isDirectory(p))
          .findFirst();
    }
  }

  ManagedChannel channel(Path socket) {
    ManagedChannel c = grpc.channel(socket);
    channels.add(c);
    return c;
  }

  public static NodePrepareResourcesResponse prepareV1(
      ManagedChannel endpoint, NodePrepareResourcesRequest request) {
    return DRAPluginGrpc.newBlockingStub(endpoint)
        .withDeadlineAfter(CALL.toMillis(), TimeUnit.MILLISECONDS)
        .nodePrepareResources(request);
  }

  public static NodeUnprepareResourcesResponse unprepareV1(
      ManagedChannel endpoint, NodeUnprepareResourcesRequest request) {
    return DRAPluginGrpc.newBlockingStub(endpoint)
        .withDeadlineAfter(CALL.toMillis(), TimeUnit.MILLISECONDS)
        .nodeUnprepareResources(request);
  }

  static io.acceld.proto.dra.v1beta1.NodePrepareResourcesResponse prepareV1beta1(
      ManagedChannel endpoint, io.acceld.proto.dra.v1beta1.NodePrepareResourcesRequest request) {
    return io.acceld.proto.dra.v1beta1.DRAPluginGrpc.newBlockingStub(endpoint)
        .withDeadlineAfter(CALL.toMillis(), TimeUnit.MILLISECONDS)
        .nodePrepareResources(request);
  }

  static io.acceld.proto.dra.v1beta1.NodeUnprepareResourcesResponse unprepareV1beta1(
      ManagedChannel endpoint, io.acceld.proto.dra.v1beta1.NodeUnprepareResourcesRequest request) {
    return io.acceld.proto.dra.v1beta1.DRAPluginGrpc.newBlockingStub(endpoint)
        .withDeadlineAfter(CALL.toMillis(), TimeUnit.MILLISECONDS)
        .nodeUnprepareResources(request);
  }

  /** A NodeWatchResources stream the kubelet holds open; every message lands in a queue. */
  public final class HealthStream {
    public final BlockingQueue<NodeWatchResourcesResponse> received = new LinkedBlockingQueue<>();
    final BlockingQueue<Throwable> ended = new LinkedBlockingQueue<>();
    private final Context.CancellableContext context;

    HealthStream(ManagedChannel endpoint) {
      context = Context.current().withCancellation();
      streams.add(context);
      context.run(
          () ->
              DRAResourceHealthGrpc.newStub(endpoint)
                  .nodeWatchResources(
                      NodeWatchResourcesRequest.getDefaultInstance(),
                      new StreamObserver<>() {
                        @Override
                        public void onNext(NodeWatchResourcesResponse value) {
                          received.add(value);
                        }

                        @Override
                        public void onError(Throwable t) {
                          ended.add(t);
                        }

                        @Override
                        public void onCompleted() {
                          ended.add(new IllegalStateException("completed"));
                        }
                      }));
    }

    /** The first message within {@code within} that {@code wanted} accepts. */
    public NodeWatchResourcesResponse await(
        Duration within, Predicate<NodeWatchResourcesResponse> wanted) throws InterruptedException {
      long deadline = System.nanoTime() + within.toNanos();
      while (true) {
        long left = deadline - System.nanoTime();
        NodeWatchResourcesResponse next =
            left <= 0 ? null : received.poll(left, TimeUnit.NANOSECONDS);
        if (next == null) {
          throw new AssertionError("no matching health message within " + within);
        }
        if (wanted.test(next)) {
          return next;
        }
      }
    }

    /** Hangs up, as the kubelet does when it stops watching. */
    public void cancel() {
      context.cancel(null);
    }
  }

  public HealthStream watchHealth(ManagedChannel endpoint) {
    return new HealthStream(endpoint);
  }

  @Override
  public void close() {
    streams.forEach(s -> s.cancel(null));
    channels.forEach(ManagedChannel::shutdownNow);
    for (ManagedChannel c : channels) {
      try {
        c.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    grpc.close();
  }
}
