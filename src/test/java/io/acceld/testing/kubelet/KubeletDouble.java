package io.acceld.testing.kubelet;

import com.google.protobuf.TextFormat;
import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.Device;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.acceld.proto.deviceplugin.v1beta1.NUMANode;
import io.acceld.proto.deviceplugin.v1beta1.PreStartContainerRequest;
import io.acceld.proto.deviceplugin.v1beta1.PreStartContainerResponse;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.acceld.proto.deviceplugin.v1beta1.RegisterRequest;
import io.acceld.proto.deviceplugin.v1beta1.RegistrationGrpc;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.Registration.Mode;
import io.acceld.transport.UnixGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ConnectivityState;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.AbstractStub;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kubelet for tests: a real gRPC server on a real {@code kubelet.sock} that registers device
 * plugins, consumes their ListAndWatch streams and calls them back exactly as the kubelet's device
 * manager does (shared/reference/kubelet-device-plugin.md §3–§8). Integration tests point the agent
 * at its directory and then observe what the kubelet would see: registrations, devices, capacity,
 * and the RPCs it made.
 *
 * <p>What it reproduces:
 *
 * <ul>
 *   <li><b>Register</b>: version and resource-name checks with the kubelet's error texts (gRPC
 *       status UNKNOWN), the endpoint joined to the directory like Go's {@code filepath.Join}, a
 *       blocking dial (10 s), {@code GetDevicePluginOptions} inside the Register call (bounded by
 *       the caller's deadline), {@code RegisterRequest.options} ignored, the last registration of a
 *       resource winning, and ListAndWatch opened asynchronously afterwards.
 *   <li><b>ListAndWatch</b>: each message replaces the device set; healthy iff health is exactly
 *       "Healthy"; any end of the stream (even a clean EOF) marks every device unhealthy, stops the
 *       endpoint and closes the connection, with no reconnect.
 *   <li><b>Capacity</b>: capacity = healthy + unhealthy, allocatable = healthy; a stopped endpoint
 *       is removed after the grace period (5 min unless configured), lazily when capacity is read.
 *   <li><b>Restart</b> ({@link #restart}): plugin connections die, every socket in the directory is
 *       deleted, resources seen before come back with empty sets and stopped endpoints, and {@code
 *       kubelet.sock} reappears as a new inode.
 *   <li><b>Plugin watcher</b> (when a plugins_registry dir is given): GetInfo with 1 s, validation,
 *       endpoint from PluginInfo (absolute) or the registry socket, NotifyRegistrationStatus with 5
 *       s; removing or re-creating the socket deregisters.
 * </ul>
 *
 * <p>Observation methods read a consistent snapshot; {@code await*} methods wait on a condition
 * signalled by every state change (and by grace-period expiry), up to a deadline, and fail with an
 * {@link AssertionError} that dumps the double's state. No method sleeps except {@link #restart},
 * whose pause is the point.
 *
 * <p>Each instance owns its threads (all named {@code kubelet-double-<id>-...}) and sockets; {@link
 * #close} stops them and waits for the threads to end, so many doubles can run in one JVM.
 */
public final class KubeletDouble implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeletDouble.class);

  /** How often {@link #await} probes again without a change of the double's own state. */
  private static final Duration REPROBE = Duration.ofMillis(20);

  public static final String KUBELET_SOCKET = "kubelet.sock";
  public static final String DEPRECATION_FILE = "DEPRECATION";
  public static final String CHECKPOINT_FILE = "kubelet_internal_checkpoint";
  public static final String VERSION = "v1beta1";
  public static final String HEALTHY = "Healthy";
  public static final Duration DEFAULT_GRACE_PERIOD = Duration.ofMinutes(5);
  public static final Duration DEFAULT_DIAL_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration PRE_START_CONTAINER_TIMEOUT = Duration.ofSeconds(30);

  private final Path deviceDir;
  private final Duration gracePeriod;
  private final Duration dialTimeout;
  private final Duration rpcWatchdog;
  private final boolean legacyReRegistrationRace;
  private final String threadPrefix;
  private final UnixGrpc grpc;
  private final ExecutorService executor;
  private final ScheduledExecutorService scheduler;
  private final PluginWatcher watcher;

  /** Serializes listen, restart and close; never held while waiting on {@link #lock}'s owner. */
  private final Object lifecycle = new Object();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  // Everything below is guarded by lock.
  private final Map<String, ResourceState> resources = new TreeMap<>();
  private final List<PluginConnection> clients = new ArrayList<>();
  private final Map<String, PluginConnection> legacyClients = new HashMap<>();
  private final Set<ManagedChannel> auxChannels = new HashSet<>();
  private final EnumMap<PluginRpc, Integer> calls = new EnumMap<>(PluginRpc.class);
  private final List<RegisterRejection> rejections = new ArrayList<>();
  private final List<WatcherNotification> notifications = new ArrayList<>();
  private final List<String> watcherErrors = new ArrayList<>();
  private final Set<String> removedResources = new TreeSet<>();
  private Server server;
  private int restarts;
  private boolean closed;

  private KubeletDouble(Builder b) throws IOException {
    this.deviceDir = b.deviceDir.toAbsolutePath();
    this.gracePeriod = b.gracePeriod;
    this.dialTimeout = b.dialTimeout;
    this.rpcWatchdog = b.rpcWatchdog;
    this.legacyReRegistrationRace = b.legacyReRegistrationRace;
    this.threadPrefix = "kubelet-double-" + Integer.toHexString(System.identityHashCode(this));
    UnixGrpc.checkSocketPath(deviceDir.resolve(KUBELET_SOCKET));
    Files.createDirectories(deviceDir);
    if (b.createDeprecationFile && !Files.exists(deviceDir.resolve(DEPRECATION_FILE))) {
      Files.createFile(deviceDir.resolve(DEPRECATION_FILE));
    }
    this.grpc = new UnixGrpc(threadPrefix, 2);
    this.executor = Executors.newCachedThreadPool(threads(threadPrefix + "-exec"));
    this.scheduler = Executors.newSingleThreadScheduledExecutor(threads(threadPrefix + "-sched"));
    this.watcher =
        b.pluginsRegistryDir == null
            ? null
            : new PluginWatcher(
                this, b.pluginsRegistryDir.toAbsolutePath(), threads(threadPrefix + "-watch"));
  }

  // ---------------------------------------------------------------------------------------------
  // Creation and lifecycle

  /** A double with default options, listening on {@code deviceDir/kubelet.sock}. */
  public static KubeletDouble start(Path deviceDir) throws IOException {
    return builder(deviceDir).start();
  }

  /** Options for a double whose device-plugin directory is {@code deviceDir}. */
  public static Builder builder(Path deviceDir) {
    return new Builder(deviceDir);
  }

  /** Options; finish with {@link #start()} or {@link #startLate()}. */
  public static final class Builder {
    private final Path deviceDir;
    private Path pluginsRegistryDir;
    private boolean createDeprecationFile;
    private Duration gracePeriod = DEFAULT_GRACE_PERIOD;
    private Duration dialTimeout = DEFAULT_DIAL_TIMEOUT;
    private Duration rpcWatchdog;
    private boolean legacyReRegistrationRace;

    private Builder(Path deviceDir) {
      this.deviceDir = deviceDir;
    }

    /** Also run the plugin watcher on this directory (created if missing). */
    public Builder pluginsRegistryDir(Path dir) {
      this.pluginsRegistryDir = dir;
      return this;
    }

    /** Create an empty {@code DEPRECATION} file, as a plugin-watcher-capable kubelet does. */
    public Builder createDeprecationFile(boolean create) {
      this.createDeprecationFile = create;
      return this;
    }

    /** How long a stopped endpoint keeps its resource before removal (kubelet: 5 min). */
    public Builder gracePeriod(Duration grace) {
      this.gracePeriod = positive(grace, "gracePeriod");
      return this;
    }

    /**
     * How long a blocking dial of a plugin socket waits (kubelet: 10 s). Shorten it for tests of
     * sockets nobody serves.
     */
    public Builder dialTimeout(Duration timeout) {
      this.dialTimeout = positive(timeout, "dialTimeout");
      return this;
    }

    /**
     * A deadline for the calls the kubelet makes without one (GetDevicePluginOptions from {@link
     * #options}, GetPreferredAllocation, Allocate), so a hung plugin fails a test instead of
     * hanging it. Off by default: the real kubelet sends no deadline and a plugin may check that.
     */
    public Builder rpcWatchdog(Duration watchdog) {
      this.rpcWatchdog = positive(watchdog, "rpcWatchdog");
      return this;
    }

    /**
     * The kubelet's re-registration race before kubernetes/kubernetes#135437 (≈1.26 until 2026):
     * when any stream of a resource ends, the kubelet disconnects whichever client is registered
     * under that name now and stops the resource's current endpoint. Off by default: an old
     * stream's end then affects only its own connection.
     */
    public Builder legacyReRegistrationRace(boolean legacy) {
      this.legacyReRegistrationRace = legacy;
      return this;
    }

    /** Creates the double and listens on {@code kubelet.sock} at once. */
    public KubeletDouble start() throws IOException {
      KubeletDouble kubelet = new KubeletDouble(this);
      try {
        kubelet.listen();
      } catch (IOException | RuntimeException e) {
        kubelet.close();
        throw e;
      }
      return kubelet;
    }

    /**
     * Creates the double (and its directory) without {@code kubelet.sock} or the plugin watcher:
     * the plugin starts first. Call {@link KubeletDouble#listen()} when the kubelet should come up.
     */
    public KubeletDouble startLate() throws IOException {
      return new KubeletDouble(this);
    }

    private static Duration positive(Duration d, String what) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive: " + d);
      }
      return d;
    }
  }

  /**
   * The kubelet's device-manager start: removes every socket in the directory (regular files such
   * as the checkpoint and {@code DEPRECATION} stay), listens on {@code kubelet.sock}, and starts
   * the plugin watcher if configured.
   */
  public void listen() throws IOException {
    synchronized (lifecycle) {
      checkOpen();
      if (isListening()) {
        throw new IllegalStateException("already listening on " + kubeletSocket());
      }
      Files.createDirectories(deviceDir);
      List<Path> removed = SocketFiles.removeSockets(deviceDir);
      if (!removed.isEmpty()) {
        log.info("kubelet double: removed sockets {}", removed);
      }
      bind();
      if (watcher != null) {
        watcher.start();
      }
    }
  }

  /**
   * A kubelet restart (§8.6): the old kubelet dies (kubelet.sock and every plugin connection
   * close), the new one seeds each resource that had devices with empty sets and a stopped endpoint
   * (capacity 0 until the plugin registers again), deletes every socket in the directory including
   * the plugins', waits {@code pauseBeforeSocket}, then listens on {@code kubelet.sock} again as a
   * new inode. The plugin watcher forgets its registrations and walks plugins_registry again.
   */
  public void restart(Duration pauseBeforeSocket) throws IOException, InterruptedException {
    synchronized (lifecycle) {
      checkOpen();
      Path pin = pinKubeletSocket();
      try {
        shutdownServer();
        if (watcher != null) {
          watcher.suspend();
        }
        List<PluginConnection> dead = new ArrayList<>();
        List<ManagedChannel> deadAux = new ArrayList<>();
        lock.lock();
        try {
          restarts++;
          dead.addAll(clients);
          deadAux.addAll(auxChannels);
          abandonAllLocked();
          seedFromCheckpointLocked(Instant.now());
          changed.signalAll();
        } finally {
          lock.unlock();
        }
        closeAll(dead, deadAux);
        List<Path> removed = SocketFiles.removeSockets(deviceDir);
        log.info("kubelet double: restarting; removed sockets {}", removed);
        if (!pauseBeforeSocket.isZero() && !pauseBeforeSocket.isNegative()) {
          Thread.sleep(pauseBeforeSocket.toMillis(), pauseBeforeSocket.toNanosPart() % 1_000_000);
        }
        bind();
        if (watcher != null) {
          watcher.resume();
        }
      } finally {
        unpin(pin);
      }
    }
  }

  /**
   * Re-creates only {@code kubelet.sock} (a new inode), as the kubelet's {@code serveWithRetry}
   * does when its server fails: plugin connections, streams and sockets are untouched.
   */
  public void relistenOnly() throws IOException {
    synchronized (lifecycle) {
      checkOpen();
      Path pin = pinKubeletSocket();
      try {
        shutdownServer();
        bind();
      } finally {
        unpin(pin);
      }
    }
  }

  /** Same as {@link #close()}. */
  public void stop() {
    close();
  }

  /**
   * Stops the server, the watcher and every plugin connection, removes {@code kubelet.sock}, and
   * waits (bounded) for all of the double's threads to end. Idempotent.
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      List<PluginConnection> dead = new ArrayList<>();
      List<ManagedChannel> deadAux = new ArrayList<>();
      lock.lock();
      try {
        if (closed) {
          return;
        }
        closed = true;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      if (watcher != null) {
        watcher.close();
      }
      shutdownServer();
      lock.lock();
      try {
        dead.addAll(clients);
        deadAux.addAll(auxChannels);
        abandonAllLocked();
      } finally {
        lock.unlock();
      }
      closeAll(dead, deadAux);
      scheduler.shutdownNow();
      executor.shutdown();
      try {
        if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
          executor.shutdownNow();
        }
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      grpc.close();
      try {
        Files.deleteIfExists(kubeletSocket());
      } catch (IOException e) {
        log.warn("kubelet double: could not remove {}", kubeletSocket(), e);
      }
      awaitThreadsEnded(Duration.ofSeconds(5));
    }
  }

  private void checkOpen() {
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException("kubelet double is closed");
      }
    } finally {
      lock.unlock();
    }
  }

  private void bind() throws IOException {
    Path socket = kubeletSocket();
    Files.deleteIfExists(socket);
    Server started =
        grpc.startServer(socket, List.of(new RegistrationService()), List.of(), executor);
    lock.lock();
    try {
      server = started;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    log.info("kubelet double: listening on {}", socket);
  }

  private void shutdownServer() {
    Server old;
    lock.lock();
    try {
      old = server;
      server = null;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (old != null) {
      old.shutdownNow();
      try {
        old.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      // Netty deletes the file when the server channel closes; this covers the other transports.
      Files.deleteIfExists(kubeletSocket());
    } catch (IOException e) {
      log.warn("kubelet double: could not remove {}", kubeletSocket(), e);
    }
  }

  /**
   * Keeps the current kubelet.sock inode alive (a hard link outside the watched directory) until
   * the new socket is bound, so the new socket cannot reuse it: ext4 hands a freed inode number out
   * again at once, and a plugin comparing inodes would miss the restart.
   */
  private Path pinKubeletSocket() {
    Path socket = kubeletSocket();
    if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    Path dir = null;
    try {
      dir = Files.createTempDirectory(deviceDir.getParent(), ".kubelet-double-inode-");
      return Files.createLink(dir.resolve(KUBELET_SOCKET), socket);
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      log.debug("kubelet double: cannot pin the kubelet.sock inode; it may be reused", e);
      deleteQuietly(dir);
      return null;
    }
  }

  private static void unpin(Path link) {
    if (link != null) {
      deleteQuietly(link);
      deleteQuietly(link.getParent());
    }
  }

  private static void deleteQuietly(Path path) {
    if (path == null) {
      return;
    }
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      log.debug("kubelet double: could not remove {}", path, e);
    }
  }

  private void abandonAllLocked() {
    for (PluginConnection c : clients) {
      c.abandoned = true;
    }
    clients.clear();
    legacyClients.clear();
    auxChannels.clear();
  }

  /**
   * The new kubelet's {@code readCheckpoint}: every resource that had a device entry comes back
   * with empty sets and a stopped endpoint (stop time = now, no options); the rest is forgotten.
   * Counters and histories persist across restarts.
   */
  private void seedFromCheckpointLocked(Instant now) {
    for (ResourceState rs : resources.values()) {
      boolean checkpointed = rs.healthy != null;
      rs.registration = null;
      rs.all.clear();
      if (checkpointed) {
        rs.healthy = new LinkedHashSet<>();
        rs.unhealthy = new LinkedHashSet<>();
        rs.endpoint = new Endpoint(null, null);
        rs.endpoint.stoppedAt = now;
        scheduleGraceSignal();
      } else {
        rs.healthy = null;
        rs.unhealthy = null;
        rs.endpoint = null;
      }
    }
  }

  private void closeAll(List<PluginConnection> connections, List<ManagedChannel> aux) {
    for (PluginConnection c : connections) {
      c.close();
    }
    for (ManagedChannel ch : aux) {
      ch.shutdownNow();
    }
    try {
      for (PluginConnection c : connections) {
        c.awaitClosed();
      }
      for (ManagedChannel ch : aux) {
        ch.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitThreadsEnded(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t != Thread.currentThread() && t.getName().startsWith(threadPrefix + "-")) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
    List<String> alive = liveThreads();
    if (!alive.isEmpty()) {
      log.warn("kubelet double: threads still alive after close: {}", alive);
    }
  }

  /** Names of this double's threads that are still alive (empty after {@link #close()}). */
  public List<String> liveThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith(threadPrefix + "-"))
        .sorted()
        .collect(Collectors.toList());
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Register (classic mode)

  private final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {
    @Override
    public void register(RegisterRequest request, StreamObserver<Empty> response) {
      try {
        handleRegister(request);
      } catch (RegistrationException e) {
        response.onError(Status.UNKNOWN.withDescription(e.getMessage()).asRuntimeException());
        return;
      }
      response.onNext(Empty.getDefaultInstance());
      response.onCompleted();
    }
  }

  private void handleRegister(RegisterRequest r) throws RegistrationException {
    String name = r.getResourceName();
    lock.lock();
    try {
      state(name).registerAttempts++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    log.info(
        "kubelet double: Register version={} endpoint={} resource={}",
        r.getVersion(),
        r.getEndpoint(),
        name);
    try {
      if (!VERSION.equals(r.getVersion())) {
        throw new RegistrationException(
            "requested API version "
                + GoText.quote(r.getVersion())
                + " is not supported by kubelet. Supported version is "
                + GoText.quoteList(List.of(VERSION)));
      }
      if (!ExtendedResourceNames.isValid(name)) {
        throw new RegistrationException("the ResourceName " + GoText.quote(name) + " is invalid");
      }
      connectClient(name, goJoin(deviceDir, r.getEndpoint()), Mode.CLASSIC, null, r);
    } catch (RegistrationException e) {
      recordRejection(Mode.CLASSIC, name, r.getEndpoint(), e.getMessage());
      throw e;
    }
  }

  /** Go's {@code filepath.Join(dir, elem)}: an absolute {@code elem} is appended, not a reset. */
  static Path goJoin(Path dir, String elem) {
    return Path.of(dir + "/" + elem).normalize();
  }

  /**
   * The kubelet's {@code connectClient}: dial (blocking, {@code dialTimeout}), {@code
   * GetDevicePluginOptions} in the caller's gRPC context, store the endpoint (replacing any), then
   * open ListAndWatch asynchronously. Shared by both registration modes.
   */
  PluginConnection connectClient(
      String name, Path socket, Mode mode, Path registrySocket, RegisterRequest request)
      throws RegistrationException {
    PluginConnection c;
    lock.lock();
    try {
      if (closed) {
        throw new RegistrationException("kubelet is shutting down");
      }
      ManagedChannel channel = grpc.channel(socket);
      c = new PluginConnection(name, socket, channel, counted(channel, name));
      clients.add(c);
      if (legacyReRegistrationRace) {
        legacyClients.put(name, c);
      }
    } finally {
      lock.unlock();
    }

    String dialError = awaitReady(c.channel);
    if (dialError != null) {
      dropFailedClient(c);
      throw new RegistrationException("failed to dial device plugin: " + dialError);
    }
    DevicePluginOptions options;
    try {
      // Runs in the caller's Context: inside Register that is the Register call's deadline and
      // cancellation, as in kubelets that pass the Register ctx on.
      options = c.blocking().getDevicePluginOptions(Empty.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      dropFailedClient(c);
      throw new RegistrationException("failed to get device plugin options: " + GoText.rpcError(e));
    }

    lock.lock();
    try {
      if (c.abandoned || closed) {
        throw new RegistrationException("kubelet restarted during registration");
      }
      ResourceState rs = state(name);
      rs.registrations++;
      Registration registration =
          new Registration(
              name,
              socket,
              options,
              Instant.now(),
              mode,
              rs.registrations,
              Optional.ofNullable(request),
              Optional.ofNullable(registrySocket));
      c.registration = registration;
      rs.registration = registration;
      rs.history.add(registration);
      rs.endpoint = new Endpoint(c, options);
      rs.removed = false;
      removedResources.remove(name);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    log.info(
        "kubelet double: registered {} at {} ({}), options {{{}}}",
        name,
        socket,
        mode,
        TextFormat.shortDebugString(options));
    try {
      executor.execute(() -> Context.ROOT.run(() -> openListAndWatch(c)));
    } catch (RejectedExecutionException e) {
      log.debug("kubelet double: closing; ListAndWatch for {} not opened", c);
    }
    return c;
  }

  private void dropFailedClient(PluginConnection c) {
    lock.lock();
    try {
      clients.remove(c);
      if (legacyReRegistrationRace) {
        legacyClients.remove(c.resource); // Go deletes by name, whichever client that is
      }
    } finally {
      lock.unlock();
    }
    c.close();
  }

  /**
   * grpc-go's {@code DialContext(..., WithBlock())}: waits for READY through transient failures
   * until the dial timeout.
   *
   * @return null when connected, else grpc-go's error text
   */
  String awaitReady(ManagedChannel channel) {
    long deadline = System.nanoTime() + dialTimeout.toNanos();
    while (true) {
      ConnectivityState state = channel.getState(true);
      if (state == ConnectivityState.READY) {
        return null;
      }
      if (state == ConnectivityState.SHUTDOWN) {
        return "context canceled";
      }
      CompletableFuture<Void> next = new CompletableFuture<>();
      channel.notifyWhenStateChanged(state, () -> next.complete(null));
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return "context deadline exceeded";
      }
      try {
        next.get(left, TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        return "context deadline exceeded";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "context canceled";
      } catch (ExecutionException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // ListAndWatch consumer

  private void openListAndWatch(PluginConnection c) {
    DevicePluginGrpc.newStub(c.counted)
        .withExecutor(executor)
        .listAndWatch(
            Empty.getDefaultInstance(),
            new StreamObserver<>() {
              @Override
              public void onNext(ListAndWatchResponse response) {
                onDevices(c, response);
              }

              @Override
              public void onError(Throwable t) {
                onStreamEnd(c, Status.fromThrowable(t));
              }

              @Override
              public void onCompleted() {
                onStreamEnd(c, Status.OK.withDescription("EOF"));
              }
            });
  }

  /** The kubelet's {@code genericDeviceUpdateCallback}: the message replaces the device set. */
  private void onDevices(PluginConnection c, ListAndWatchResponse response) {
    lock.lock();
    try {
      if (c.abandoned) {
        return;
      }
      Instant now = Instant.now();
      ResourceState rs = state(c.resource);
      rs.healthy = new LinkedHashSet<>();
      rs.unhealthy = new LinkedHashSet<>();
      rs.all.clear();
      List<DeviceState> reported = new ArrayList<>();
      for (Device d : response.getDevicesList()) {
        rs.all.put(d.getID(), d);
        boolean healthy = HEALTHY.equals(d.getHealth());
        (healthy ? rs.healthy : rs.unhealthy).add(d.getID());
        reported.add(toState(d, healthy));
      }
      rs.updates.add(
          new DeviceUpdate(now, c.registration.sequence(), reported, response.getSerializedSize()));
      if (c.firstUpdateAt == null) {
        c.firstUpdateAt = now;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    log.debug("kubelet double: {} sent {} devices", c, response.getDevicesCount());
  }

  /**
   * The end of a ListAndWatch stream, clean or not: the kubelet's {@code runClient} tail. The
   * connection is closed, every device of the resource becomes unhealthy and the endpoint stops.
   */
  private void onStreamEnd(PluginConnection c, Status status) {
    List<PluginConnection> toClose = new ArrayList<>();
    lock.lock();
    try {
      if (c.abandoned || c.streamEnd != null) {
        return;
      }
      c.streamEnd = status;
      c.streamEndedAt = Instant.now();
      if (c.registration != null) {
        state(c.resource)
            .streamEnds
            .add(new StreamEnd(c.registration.sequence(), c.socket, status, c.streamEndedAt));
      }
      log.info("kubelet double: ListAndWatch ended unexpectedly for {}: {}", c, status);
      if (c.disconnected) {
        changed.signalAll();
        return;
      }
      if (legacyReRegistrationRace) {
        PluginConnection current = legacyClients.remove(c.resource);
        if (current != null) {
          current.disconnected = true;
          clients.remove(current);
          toClose.add(current);
          pluginDisconnectedLocked(c.resource, null);
        }
        if (current != c) {
          clients.remove(c);
          toClose.add(c); // Go leaks it; closing changes nothing the plugin can rely on
        }
      } else {
        c.disconnected = true;
        clients.remove(c);
        toClose.add(c);
        pluginDisconnectedLocked(c.resource, c);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    toClose.forEach(PluginConnection::close);
  }

  /**
   * The kubelet's {@code PluginDisconnected}: healthy devices move to unhealthy and the endpoint
   * gets its stop time. With {@code only} set, nothing happens unless it is the current endpoint.
   */
  private void pluginDisconnectedLocked(String resource, PluginConnection only) {
    ResourceState rs = resources.get(resource);
    if (rs == null || rs.endpoint == null) {
      return;
    }
    if (only != null && rs.endpoint.connection != only) {
      return;
    }
    if (rs.healthy != null) {
      rs.unhealthy.addAll(rs.healthy);
      rs.healthy = new LinkedHashSet<>();
    }
    if (rs.endpoint.stoppedAt == null) {
      rs.endpoint.stoppedAt = Instant.now();
      scheduleGraceSignal();
    }
  }

  /** The plugin watcher's {@code DeRegisterPlugin}: disconnects the client registered for it. */
  void deregisterPlugin(String name, PluginConnection c) {
    PluginConnection toClose = null;
    lock.lock();
    try {
      if (legacyReRegistrationRace) {
        toClose = legacyClients.remove(name);
        if (toClose != null) {
          toClose.disconnected = true;
          clients.remove(toClose);
          pluginDisconnectedLocked(name, null);
        }
      } else if (c != null && !c.disconnected && !c.abandoned) {
        c.disconnected = true;
        clients.remove(c);
        toClose = c;
        pluginDisconnectedLocked(name, c);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (toClose != null) {
      log.info("kubelet double: deregistered {}", toClose);
      toClose.close();
    }
  }

  private void scheduleGraceSignal() {
    try {
      scheduler.schedule(
          this::signal,
          gracePeriod.toNanos() + TimeUnit.MILLISECONDS.toNanos(1),
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Plumbing shared with the plugin watcher

  Channel counted(ManagedChannel channel, String resource) {
    return ClientInterceptors.intercept(
        channel,
        new ClientInterceptor() {
          @Override
          public <Q, R> ClientCall<Q, R> interceptCall(
              MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            PluginRpc.of(method.getFullMethodName()).ifPresent(rpc -> countCall(resource, rpc));
            return next.newCall(method, options);
          }
        });
  }

  private void countCall(String resource, PluginRpc rpc) {
    lock.lock();
    try {
      calls.merge(rpc, 1, Integer::sum);
      if (resource != null) {
        state(resource).calls.merge(rpc, 1, Integer::sum);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** A channel to a registry socket, closed by {@link #close()} and {@link #restart}. */
  ManagedChannel openAuxChannel(Path socket) {
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException("kubelet double is closed");
      }
      ManagedChannel channel = grpc.channel(socket);
      auxChannels.add(channel);
      return channel;
    } finally {
      lock.unlock();
    }
  }

  void closeAuxChannel(ManagedChannel channel) {
    lock.lock();
    try {
      auxChannels.remove(channel);
    } finally {
      lock.unlock();
    }
    channel.shutdownNow();
  }

  ExecutorService executor() {
    return executor;
  }

  ScheduledExecutorService scheduler() {
    return scheduler;
  }

  void recordRejection(Mode mode, String resource, String endpoint, String message) {
    lock.lock();
    try {
      rejections.add(new RegisterRejection(mode, resource, endpoint, message, Instant.now()));
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    log.info("kubelet double: rejected {} registration of {}: {}", mode, resource, message);
  }

  void recordNotification(WatcherNotification n) {
    lock.lock();
    try {
      notifications.add(n);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  void recordWatcherError(String error) {
    lock.lock();
    try {
      watcherErrors.add(error);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    log.info("kubelet double: {}", error);
  }

  void signal() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Observation

  /** The device-plugin directory (absolute). */
  public Path deviceDir() {
    return deviceDir;
  }

  /** {@code deviceDir/kubelet.sock}. */
  public Path kubeletSocket() {
    return deviceDir.resolve(KUBELET_SOCKET);
  }

  /** The plugins_registry directory, in plugin-watcher mode. */
  public Optional<Path> pluginsRegistryDir() {
    return Optional.ofNullable(watcher).map(PluginWatcher::root);
  }

  /** Whether {@code kubelet.sock} is being served. */
  public boolean isListening() {
    lock.lock();
    try {
      return server != null;
    } finally {
      lock.unlock();
    }
  }

  /** How many times {@link #restart} ran. */
  public int restarts() {
    lock.lock();
    try {
      return restarts;
    } finally {
      lock.unlock();
    }
  }

  /** The resource's current registration (since the last restart), if any. */
  public Optional<Registration> registration(String resource) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      return rs == null ? Optional.empty() : Optional.ofNullable(rs.registration);
    } finally {
      lock.unlock();
    }
  }

  /** Waits until the resource has a current registration (since the last restart). */
  public Registration awaitRegistered(String resource, Duration timeout)
      throws InterruptedException {
    return await("a registration of " + resource, () -> registration(resource), timeout);
  }

  /**
   * Waits until some registration of the resource (over the double's life) matches, and returns the
   * latest that does; e.g. {@code r -> r.sequence() >= 2} for a re-registration.
   */
  public Registration awaitRegistration(
      String resource, Predicate<Registration> condition, Duration timeout)
      throws InterruptedException {
    return await(
        "a matching registration of " + resource,
        () -> {
          List<Registration> history = registrationHistory(resource);
          for (int i = history.size() - 1; i >= 0; i--) {
            if (condition.test(history.get(i))) {
              return Optional.of(history.get(i));
            }
          }
          return Optional.empty();
        },
        timeout);
  }

  /** Every successful registration of the resource, oldest first, across restarts. */
  public List<Registration> registrationHistory(String resource) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      return rs == null ? List.of() : List.copyOf(rs.history);
    } finally {
      lock.unlock();
    }
  }

  /** Successful registrations per resource (both modes), across restarts. */
  public Map<String, Integer> registrations() {
    lock.lock();
    try {
      Map<String, Integer> out = new TreeMap<>();
      resources.forEach(
          (name, rs) -> {
            if (rs.registrations > 0) {
              out.put(name, rs.registrations);
            }
          });
      return Collections.unmodifiableMap(out);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Register calls received for the resource, accepted or not: the kubelet's {@code
   * device_plugin_registration_total} metric.
   */
  public int registerAttempts(String resource) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      return rs == null ? 0 : rs.registerAttempts;
    } finally {
      lock.unlock();
    }
  }

  /** Refused registrations, oldest first. */
  public List<RegisterRejection> rejections() {
    lock.lock();
    try {
      return List.copyOf(rejections);
    } finally {
      lock.unlock();
    }
  }

  /** Waits for a refused registration that matches. */
  public RegisterRejection awaitRejection(Predicate<RegisterRejection> condition, Duration timeout)
      throws InterruptedException {
    return await(
        "a matching rejected registration",
        () -> rejections().stream().filter(condition).reduce((a, b) -> b),
        timeout);
  }

  /** The resource's devices as the kubelet currently knows them, in the plugin's order. */
  public List<DeviceState> devices(String resource) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      if (rs == null) {
        return List.of();
      }
      List<DeviceState> out = new ArrayList<>();
      for (Device d : rs.all.values()) {
        out.add(toState(d, rs.healthy != null && rs.healthy.contains(d.getID())));
      }
      return List.copyOf(out);
    } finally {
      lock.unlock();
    }
  }

  /** Waits until the resource's device list matches, and returns it. */
  public List<DeviceState> awaitDevices(
      String resource, Predicate<List<DeviceState>> condition, Duration timeout)
      throws InterruptedException {
    return await(
        "devices of " + resource + " to match",
        () -> {
          List<DeviceState> devices = devices(resource);
          return condition.test(devices) ? Optional.of(devices) : Optional.empty();
        },
        timeout);
  }

  /** Every ListAndWatch message received for the resource, oldest first, across restarts. */
  public List<DeviceUpdate> updates(String resource) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      return rs == null ? List.of() : List.copyOf(rs.updates);
    } finally {
      lock.unlock();
    }
  }

  /** When the current endpoint's first ListAndWatch message arrived. */
  public Optional<Instant> firstUpdateAt(String resource) {
    return fromCurrentConnection(resource, c -> c.firstUpdateAt);
  }

  /**
   * The node's capacity for the resource: healthy + unhealthy devices. Like the kubelet's {@code
   * GetCapacity}, reading it first removes resources whose endpoint stopped longer than the grace
   * period ago; those read 0 and appear in {@link #removedResources()}.
   */
  public long capacity(String resource) {
    lock.lock();
    try {
      collectExpiredLocked();
      ResourceState rs = resources.get(resource);
      if (rs == null) {
        return 0;
      }
      return (rs.healthy == null ? 0 : rs.healthy.size())
          + (rs.unhealthy == null ? 0 : rs.unhealthy.size());
    } finally {
      lock.unlock();
    }
  }

  /** The node's allocatable for the resource: healthy devices (after the same removal pass). */
  public long allocatable(String resource) {
    lock.lock();
    try {
      collectExpiredLocked();
      ResourceState rs = resources.get(resource);
      return rs == null || rs.healthy == null ? 0 : rs.healthy.size();
    } finally {
      lock.unlock();
    }
  }

  /** Resources removed after their grace period (the kubelet then reports capacity 0). */
  public Set<String> removedResources() {
    lock.lock();
    try {
      collectExpiredLocked();
      return Set.copyOf(removedResources);
    } finally {
      lock.unlock();
    }
  }

  private void collectExpiredLocked() {
    Instant now = Instant.now();
    for (ResourceState rs : resources.values()) {
      if (rs.healthy == null && rs.unhealthy == null) {
        continue;
      }
      Endpoint ep = rs.endpoint;
      boolean expired =
          ep == null
              || (ep.stoppedAt != null
                  && Duration.between(ep.stoppedAt, now).compareTo(gracePeriod) > 0);
      if (expired) {
        rs.endpoint = null;
        rs.registration = null;
        rs.healthy = null;
        rs.unhealthy = null;
        rs.all.clear();
        rs.removed = true;
        removedResources.add(rs.name);
        log.info("kubelet double: removed resource {} after the grace period", rs.name);
      }
    }
  }

  /** True iff the resource's current endpoint is registered and its stream has not ended. */
  public boolean isConnected(String resource) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      return rs != null
          && rs.endpoint != null
          && rs.endpoint.connection != null
          && rs.endpoint.stoppedAt == null
          && rs.endpoint.connection.streamEnd == null;
    } finally {
      lock.unlock();
    }
  }

  /** True iff the ListAndWatch stream of the resource's current endpoint has ended. */
  public boolean streamEnded(String resource) {
    return streamEndStatus(resource).isPresent();
  }

  /**
   * How the current endpoint's stream ended: OK with description "EOF" for a clean end, else the
   * gRPC status the double saw.
   */
  public Optional<Status> streamEndStatus(String resource) {
    return fromCurrentConnection(resource, c -> c.streamEnd);
  }

  /** Every ListAndWatch stream of the resource that ended, oldest first, across restarts. */
  public List<StreamEnd> streamEnds(String resource) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      return rs == null ? List.of() : List.copyOf(rs.streamEnds);
    } finally {
      lock.unlock();
    }
  }

  /** When the resource's current endpoint stopped (stream end, deregistration, restart). */
  public Optional<Instant> stoppedAt(String resource) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      return rs == null || rs.endpoint == null
          ? Optional.empty()
          : Optional.ofNullable(rs.endpoint.stoppedAt);
    } finally {
      lock.unlock();
    }
  }

  /** Waits until the current endpoint's stream has ended; returns how it ended. */
  public Status awaitStreamEnded(String resource, Duration timeout) throws InterruptedException {
    return await(
        "the ListAndWatch stream of " + resource + " to end",
        () -> streamEndStatus(resource),
        timeout);
  }

  private <T> Optional<T> fromCurrentConnection(
      String resource, Function<PluginConnection, T> field) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      return rs == null || rs.endpoint == null || rs.endpoint.connection == null
          ? Optional.empty()
          : Optional.ofNullable(field.apply(rs.endpoint.connection));
    } finally {
      lock.unlock();
    }
  }

  /** How many calls of {@code rpc} the double made, to any plugin. */
  public int calls(PluginRpc rpc) {
    lock.lock();
    try {
      return calls.getOrDefault(rpc, 0);
    } finally {
      lock.unlock();
    }
  }

  /**
   * How many calls of {@code rpc} the double made on connections of {@code resource} (GetInfo and
   * NotifyRegistrationStatus go to registry sockets and are counted only in {@link
   * #calls(PluginRpc)}).
   */
  public int calls(String resource, PluginRpc rpc) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      return rs == null ? 0 : rs.calls.getOrDefault(rpc, 0);
    } finally {
      lock.unlock();
    }
  }

  /** NotifyRegistrationStatus calls the plugin watcher made, oldest first. */
  public List<WatcherNotification> notifications() {
    lock.lock();
    try {
      return List.copyOf(notifications);
    } finally {
      lock.unlock();
    }
  }

  /** Waits for a NotifyRegistrationStatus call that matches. */
  public WatcherNotification awaitNotification(
      Predicate<WatcherNotification> condition, Duration timeout) throws InterruptedException {
    return await(
        "a matching NotifyRegistrationStatus",
        () -> notifications().stream().filter(condition).reduce((a, b) -> b),
        timeout);
  }

  /** The plugin watcher's failed registration attempts (the kubelet's log lines), oldest first. */
  public List<String> watcherErrors() {
    lock.lock();
    try {
      return List.copyOf(watcherErrors);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until {@code probe} yields a value, up to {@code timeout} scaled by {@link Waits}. The
   * probe runs under the double's lock each time its state changes, and at least every {@link
   * #REPROBE}: tests also wait here for what the double does not see (a file a task writes, the
   * agent's /readyz), and a probe run only on the double's changes saw those at the deadline alone,
   * a full minute late and then passing (a Mesos test did, on a busy machine). It must be quick and
   * must not block.
   */
  public <T> T await(String what, Supplier<Optional<T>> probe, Duration timeout)
      throws InterruptedException {
    timeout = Waits.scaled(timeout);
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (true) {
        Optional<T> value = probe.get();
        if (value.isPresent()) {
          return value.get();
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(
              "kubelet double: timed out after "
                  + timeout
                  + " waiting for "
                  + what
                  + "\n"
                  + describe());
        }
        if (closed) {
          throw new AssertionError(
              "kubelet double: closed while waiting for " + what + "\n" + describe());
        }
        changed.awaitNanos(Math.min(left, REPROBE.toNanos()));
      }
    } finally {
      lock.unlock();
    }
  }

  /** {@link #await} for a yes/no condition. */
  public void awaitCondition(String what, BooleanSupplier condition, Duration timeout)
      throws InterruptedException {
    await(
        what,
        () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty(),
        timeout);
  }

  /** A readable dump of the double's state, for failure messages. */
  public String describe() {
    lock.lock();
    try {
      StringBuilder out = new StringBuilder("KubeletDouble[").append(deviceDir);
      out.append(server != null ? ", listening" : ", not listening");
      out.append(closed ? ", closed" : "").append(", restarts=").append(restarts).append("]\n");
      for (ResourceState rs : resources.values()) {
        out.append("  ").append(rs.name).append(": attempts=").append(rs.registerAttempts);
        out.append(" registrations=").append(rs.registrations);
        if (rs.endpoint != null) {
          PluginConnection c = rs.endpoint.connection;
          out.append(" endpoint=").append(c == null ? "(from checkpoint)" : c.socket);
          out.append(
              rs.endpoint.stoppedAt == null ? " running" : " stopped@" + rs.endpoint.stoppedAt);
          if (c != null && c.streamEnd != null) {
            out.append(" streamEnd=").append(c.streamEnd);
          }
        } else {
          out.append(" no endpoint");
        }
        out.append(" healthy=").append(rs.healthy).append(" unhealthy=").append(rs.unhealthy);
        out.append(" updates=").append(rs.updates.size());
        out.append(rs.removed ? " removed" : "").append(" calls=").append(rs.calls).append('\n');
      }
      if (!rejections.isEmpty()) {
        out.append("  rejections: ").append(rejections).append('\n');
      }
      if (!notifications.isEmpty()) {
        out.append("  notifications: ").append(notifications).append('\n');
      }
      if (!watcherErrors.isEmpty()) {
        out.append("  watcher errors: ").append(watcherErrors).append('\n');
      }
      out.append("  calls: ").append(calls);
      return out.toString();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return describe();
  }

  // ---------------------------------------------------------------------------------------------
  // Actions on the plugin, through the connection the double dialled

  /**
   * Allocate with one ContainerAllocateRequest per element of {@code containers}, sent as given.
   * The real kubelet sends exactly one; several are the conformance extra (§8.7). No deadline
   * unless {@link Builder#rpcWatchdog} is set. RPC failures surface as {@link
   * StatusRuntimeException}.
   *
   * @throws IllegalStateException if the resource has no endpoint or it has stopped (the kubelet's
   *     {@code endpoint ... has been stopped})
   */
  public AllocateResponse allocate(String resource, List<List<String>> containers) {
    AllocateRequest.Builder request = AllocateRequest.newBuilder();
    for (List<String> ids : containers) {
      request.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids));
    }
    return watchdog(liveConnection(resource).blocking()).allocate(request.build());
  }

  /**
   * Allocate as the kubelet does it: one container request, and {@code container_responses[0]} of
   * the answer.
   *
   * @throws DeviceManagerException if the plugin returned no container response
   */
  public ContainerAllocateResponse allocateOne(String resource, List<String> deviceIds) {
    AllocateResponse response = allocate(resource, List.of(deviceIds));
    if (response.getContainerResponsesCount() == 0) {
      throw new DeviceManagerException("no containers return in allocation response " + response);
    }
    return response.getContainerResponses(0);
  }

  /** GetPreferredAllocation with one container request, as the kubelet sends it. */
  public PreferredAllocationResponse getPreferredAllocation(
      String resource, Collection<String> available, Collection<String> mustInclude, int size) {
    PreferredAllocationRequest request =
        PreferredAllocationRequest.newBuilder()
            .addContainerRequests(
                ContainerPreferredAllocationRequest.newBuilder()
                    .addAllAvailableDeviceIDs(available)
                    .addAllMustIncludeDeviceIDs(mustInclude)
                    .setAllocationSize(size))
            .build();
    return watchdog(liveConnection(resource).blocking()).getPreferredAllocation(request);
  }

  /**
   * GetPreferredAllocation with a request as given, for requests the kubelet would never send
   * (several container requests, say).
   */
  public PreferredAllocationResponse getPreferredAllocation(
      String resource, PreferredAllocationRequest request) {
    return watchdog(liveConnection(resource).blocking()).getPreferredAllocation(request);
  }

  /** PreStartContainer with the kubelet's 30 s deadline. */
  public PreStartContainerResponse preStartContainer(
      String resource, Collection<String> deviceIds) {
    return liveConnection(resource)
        .blocking()
        .withDeadlineAfter(PRE_START_CONTAINER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .preStartContainer(
            PreStartContainerRequest.newBuilder().addAllDevicesIds(deviceIds).build());
  }

  /** Calls GetDevicePluginOptions again on the resource's connection. */
  public DevicePluginOptions options(String resource) {
    return watchdog(liveConnection(resource).blocking())
        .getDevicePluginOptions(Empty.getDefaultInstance());
  }

  private <S extends AbstractStub<S>> S watchdog(S stub) {
    return rpcWatchdog == null
        ? stub
        : stub.withDeadlineAfter(rpcWatchdog.toMillis(), TimeUnit.MILLISECONDS);
  }

  private PluginConnection liveConnection(String resource) {
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      Endpoint ep = rs == null ? null : rs.endpoint;
      if (ep == null) {
        throw new IllegalStateException(
            "endpoint not found in cache for a registered resource: " + resource);
      }
      if (ep.connection == null || ep.stoppedAt != null) {
        throw new IllegalStateException(
            "endpoint "
                + (ep.connection == null ? resource : ep.connection.socket)
                + " has been stopped");
      }
      return ep.connection;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Admits one container requesting {@code count} devices of the resource, as the device manager's
   * {@code devicesToAllocate} + {@code allocateContainerResources} do with no NUMA hint (topology
   * policy "none"): checks, then GetPreferredAllocation only if the plugin's options offer it (one
   * request: all free healthy devices, nothing must-include, size = count), the answer ∩ available
   * filled up from the remaining free devices, then Allocate with one request of unordered IDs. The
   * devices stay allocated until {@link #release}.
   *
   * @throws DeviceManagerException with the kubelet's text when admission fails
   */
  public ContainerAllocation admitContainer(String resource, int count) {
    List<String> free;
    PluginConnection c;
    DevicePluginOptions options;
    lock.lock();
    try {
      ResourceState rs = resources.get(resource);
      if (rs == null || rs.healthy == null) {
        throw new DeviceManagerException("cannot allocate unregistered device " + resource);
      }
      if (rs.healthy.isEmpty()) {
        throw new DeviceManagerException(
            "no healthy devices present; cannot allocate unhealthy devices " + resource);
      }
      free = new ArrayList<>(rs.healthy);
      free.removeAll(rs.allocated);
      if (free.size() < count) {
        throw new DeviceManagerException(
            "requested number of devices unavailable for "
                + resource
                + ". Requested: "
                + count
                + ", Available: "
                + free.size());
      }
      if (rs.endpoint == null) {
        throw new DeviceManagerException(
            "endpoint not found in cache for a registered resource: " + resource);
      }
      c = rs.endpoint.connection;
      options = rs.endpoint.options;
      Collections.shuffle(free); // sets.UnsortedList(): no order to rely on
    } finally {
      lock.unlock();
    }

    List<String> chosen = new ArrayList<>();
    Optional<List<String>> preferred = Optional.empty();
    if (options != null && options.getGetPreferredAllocationAvailable()) {
      try {
        PreferredAllocationResponse answer =
            getPreferredAllocation(resource, free, List.of(), count);
        List<String> ids =
            answer.getContainerResponsesCount() == 0
                ? List.of()
                : answer.getContainerResponses(0).getDeviceIDsList();
        preferred = Optional.of(ids);
        for (String id : new LinkedHashSet<>(ids)) {
          if (chosen.size() < count && free.contains(id)) {
            chosen.add(id);
          }
        }
      } catch (StatusRuntimeException | IllegalStateException e) {
        throw new DeviceManagerException(
            "device plugin GetPreferredAllocation rpc failed with err: " + errorText(e), e);
      }
    }
    for (String id : free) {
      if (chosen.size() >= count) {
        break;
      }
      if (!chosen.contains(id)) {
        chosen.add(id);
      }
    }
    Collections.shuffle(chosen);

    lock.lock();
    try {
      state(resource).allocated.addAll(chosen);
    } finally {
      lock.unlock();
    }
    try {
      if (c == null) {
        throw new IllegalStateException("endpoint " + resource + " has been stopped");
      }
      ContainerAllocateResponse response = allocateOne(resource, chosen);
      return new ContainerAllocation(resource, chosen, preferred, response);
    } catch (StatusRuntimeException | IllegalStateException | DeviceManagerException e) {
      lock.lock();
      try {
        state(resource).allocated.removeAll(chosen);
      } finally {
        lock.unlock();
      }
      if (e instanceof DeviceManagerException dme) {
        throw dme;
      }
      throw new DeviceManagerException(errorText(e), e);
    }
  }

  /**
   * The device manager's container start for one resource: PreStartContainer with the allocated
   * devices and a 30 s deadline, only if the plugin's options require it.
   *
   * @return whether PreStartContainer was called
   * @throws DeviceManagerException with the kubelet's text when it fails
   */
  public boolean startContainer(ContainerAllocation allocation) {
    DevicePluginOptions options;
    lock.lock();
    try {
      ResourceState rs = resources.get(allocation.resource());
      if (rs == null || rs.endpoint == null) {
        throw new DeviceManagerException(
            "endpoint not found in cache for a registered resource: " + allocation.resource());
      }
      options = rs.endpoint.options;
    } finally {
      lock.unlock();
    }
    if (options == null || !options.getPreStartRequired()) {
      return false;
    }
    try {
      preStartContainer(allocation.resource(), allocation.deviceIds());
      return true;
    } catch (StatusRuntimeException | IllegalStateException e) {
      throw new DeviceManagerException(
          "device plugin PreStartContainer rpc failed with err: " + errorText(e), e);
    }
  }

  /** Frees the devices of an admitted container (the pod went away). */
  public void release(ContainerAllocation allocation) {
    lock.lock();
    try {
      state(allocation.resource()).allocated.removeAll(allocation.deviceIds());
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private static String errorText(RuntimeException e) {
    return e instanceof StatusRuntimeException ? GoText.rpcError(e) : e.getMessage();
  }

  // ---------------------------------------------------------------------------------------------
  // State

  private ResourceState state(String name) {
    return resources.computeIfAbsent(name, ResourceState::new);
  }

  private static DeviceState toState(Device d, boolean healthy) {
    List<Long> numa = new ArrayList<>();
    if (d.hasTopology()) {
      for (NUMANode node : d.getTopology().getNodesList()) {
        numa.add(node.getID());
      }
    }
    return new DeviceState(d.getID(), d.getHealth(), healthy, numa);
  }

  /** One resource in the device manager (plus the double's counters and histories). */
  private static final class ResourceState {
    final String name;
    int registerAttempts;
    int registrations;
    final List<Registration> history = new ArrayList<>();
    Registration registration;
    Endpoint endpoint;
    Set<String> healthy; // null: no device entry (never listed, or removed)
    Set<String> unhealthy;
    final Map<String, Device> all = new LinkedHashMap<>();
    final List<DeviceUpdate> updates = new ArrayList<>();
    final List<StreamEnd> streamEnds = new ArrayList<>();
    final Set<String> allocated = new HashSet<>();
    final EnumMap<PluginRpc, Integer> calls = new EnumMap<>(PluginRpc.class);
    boolean removed;

    ResourceState(String name) {
      this.name = name;
    }
  }

  /** The device manager's {@code endpointInfo}. */
  private static final class Endpoint {
    final PluginConnection connection; // null: seeded from the checkpoint after a restart
    final DevicePluginOptions options; // null likewise
    Instant stoppedAt;

    Endpoint(PluginConnection connection, DevicePluginOptions options) {
      this.connection = connection;
      this.options = options;
    }
  }
}
