package io.acceld.dra;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.proto.drahealth.v1alpha1.DRAResourceHealthGrpc;
import io.acceld.proto.drahealth.v1alpha1.DeviceHealth;
import io.acceld.proto.drahealth.v1alpha1.DeviceIdentifier;
import io.acceld.proto.drahealth.v1alpha1.HealthStatus;
import io.acceld.proto.drahealth.v1alpha1.NodeWatchResourcesRequest;
import io.acceld.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.acceld.util.GuardedBy;
import io.acceld.util.NamedThreads;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Clock;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DRA resource health, v1alpha1 ({@code v1alpha1.DRAResourceHealth/NodeWatchResources}), modelled
 * on grpc-java's health service watch. Each message is the complete device list (pool = the node,
 * device = its DRA name, Healthy or Unhealthy with the reason), sent on subscribe, on every
 * inventory change, and every {@code period}: the kubelet turns a device Unknown when it has not
 * heard of it within its timeout, which each message sets to three periods.
 *
 * <p>Every message of every stream is sent from one thread ({@code acceld-dra-health}), so a stream
 * has one writer and messages leave in order. Streams are kept in an identity set (a stream's
 * equality is not ours to trust) and leave it when the kubelet cancels or a send fails. A stream
 * whose client does not read is skipped rather than buffered without bound: each message is
 * complete, so the next one it reads is as good as any skipped.
 */
final class DraHealthService extends DRAResourceHealthGrpc.DRAResourceHealthImplBase
    implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DraHealthService.class);

  /** The API's limit on a device's message; a longer one is cut as the kubelet would. */
  static final int MAX_MESSAGE = 1024;

  private final DraSettings settings;
  private final Supplier<Inventory> inventory;
  private final Clock clock;
  private final long timeoutSeconds;
  private final ScheduledExecutorService writer =
      Executors.newSingleThreadScheduledExecutor(new NamedThreads("acceld-dra-health"));

  private final Object watchLock = new Object();

  /** Each open stream, and whether it has had its first message. */
  @GuardedBy("watchLock")
  private final Map<ServerCallStreamObserver<NodeWatchResourcesResponse>, Boolean> watchers =
      new IdentityHashMap<>();

  @GuardedBy("watchLock")
  private boolean closed;

  /**
   * @param inventory the current inventory, read for each message
   * @param period how often every stream gets the full list again
   */
  DraHealthService(
      DraSettings settings, Supplier<Inventory> inventory, Clock clock, Duration period) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.inventory = Objects.requireNonNull(inventory, "inventory");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timeoutSeconds = Math.max(1, (period.multipliedBy(3).toMillis() + 999) / 1000);
    writer.scheduleAtFixedRate(
        this::broadcast, period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void nodeWatchResources(
      NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> response) {
    ServerCallStreamObserver<NodeWatchResourcesResponse> stream =
        (ServerCallStreamObserver<NodeWatchResourcesResponse>) response;
    synchronized (watchLock) {
      if (closed) {
        stream.onError(
            Status.UNAVAILABLE.withDescription("the DRA plugin is stopping").asException());
        return;
      }
      stream.setOnCancelHandler(() -> forget(stream));
      watchers.put(stream, false);
    }
    run(this::broadcast);
  }

  /** The inventory changed (health, presence): every stream hears of it now. */
  void inventoryChanged() {
    run(this::broadcast);
  }

  /** Open streams; for tests. */
  int watcherCount() {
    synchronized (watchLock) {
      return watchers.size();
    }
  }

  private void run(Runnable task) {
    try {
      writer.execute(task);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /** On the writer thread only. */
  private void broadcast() {
    List<Map.Entry<ServerCallStreamObserver<NodeWatchResourcesResponse>, Boolean>> streams;
    synchronized (watchLock) {
      if (watchers.isEmpty()) {
        return;
      }
      streams = List.copyOf(watchers.entrySet());
    }
    NodeWatchResourcesResponse report = report();
    for (Map.Entry<ServerCallStreamObserver<NodeWatchResourcesResponse>, Boolean> e : streams) {
      ServerCallStreamObserver<NodeWatchResourcesResponse> stream = e.getKey();
      boolean sentBefore = e.getValue();
      if (stream.isCancelled()) {
        forget(stream);
        continue;
      }
      if (sentBefore && !stream.isReady()) {
        continue; // the client is not reading; the next message carries everything again
      }
      try {
        stream.onNext(report);
        synchronized (watchLock) {
          watchers.replace(stream, true);
        }
      } catch (RuntimeException ex) {
        log.debug("Dropping a health stream that failed: {}", ex.toString());
        forget(stream);
      }
    }
  }

  private void forget(ServerCallStreamObserver<NodeWatchResourcesResponse> stream) {
    synchronized (watchLock) {
      watchers.remove(stream);
    }
  }

  /** The complete list, now. */
  NodeWatchResourcesResponse report() {
    long now = clock.instant().getEpochSecond();
    NodeWatchResourcesResponse.Builder out = NodeWatchResourcesResponse.newBuilder();
    for (Map.Entry<String, Device> e : DeviceNames.of(inventory.get()).all().entrySet()) {
      Device d = e.getValue();
      out.addDevices(
          DeviceHealth.newBuilder()
              .setDevice(
                  DeviceIdentifier.newBuilder()
                      .setPoolName(settings.pool())
                      .setDeviceName(e.getKey()))
              .setHealth(d.isHealthy() ? HealthStatus.HEALTHY : HealthStatus.UNHEALTHY)
              .setLastUpdatedTime(now)
              .setHealthCheckTimeoutSeconds(timeoutSeconds)
              .setMessage(message(d)));
    }
    return out.build();
  }

  static String message(Device d) {
    if (d.isHealthy()) {
      return "";
    }
    String reason = d.healthReason().orElse("Unhealthy");
    return reason.length() <= MAX_MESSAGE ? reason : reason.substring(0, MAX_MESSAGE - 3) + "...";
  }

  /** Ends every stream's updates; the server's stop ends the streams themselves. */
  @Override
  public void close() {
    synchronized (watchLock) {
      closed = true;
      watchers.clear();
    }
    writer.shutdownNow();
  }
}
