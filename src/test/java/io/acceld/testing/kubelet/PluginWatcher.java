package io.acceld.testing.kubelet;

import io.acceld.proto.pluginregistration.InfoRequest;
import io.acceld.proto.pluginregistration.PluginInfo;
import io.acceld.proto.pluginregistration.RegistrationGrpc;
import io.acceld.proto.pluginregistration.RegistrationStatus;
import io.acceld.testing.kubelet.Registration.Mode;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's plugin manager for device plugins (§4): a watch on plugins_registry and its
 * subdirectories feeding a desired state, and a reconcile loop every second (also run at once on
 * each file event) that registers sockets in the desired state and deregisters the ones that went
 * away or were re-created. The desired state is re-read from the directory on every pass, so a
 * missed or coalesced event costs at most a second.
 *
 * <p>Registration follows {@code operation_generator.go}: dial (blocking), GetInfo (1 s), type
 * "DevicePlugin", validation, endpoint = PluginInfo.endpoint as an absolute path or the registry
 * socket itself, then the device manager's connectClient and NotifyRegistrationStatus (5 s).
 * Failures before the plugin enters the actual state are retried with exponential backoff (500 ms
 * doubling up to 2 min 2 s); a failure in connectClient is notified and not retried until the
 * socket is re-created.
 */
final class PluginWatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PluginWatcher.class);

  static final String DEVICE_PLUGIN_TYPE = "DevicePlugin";
  static final Duration RECONCILE_PERIOD = Duration.ofSeconds(1);
  static final Duration GET_INFO_TIMEOUT = Duration.ofSeconds(1);
  static final Duration NOTIFY_TIMEOUT = Duration.ofSeconds(5);
  static final Duration INITIAL_BACKOFF = Duration.ofMillis(500);
  static final Duration MAX_BACKOFF = Duration.ofMillis(122_000);

  private final KubeletDouble kubelet;
  private final Path root;
  private final ThreadFactory threads;
  private final Object lock = new Object();

  // Guarded by lock.
  private final Map<Path, Registered> actual = new HashMap<>();
  private final Set<Path> inFlight = new HashSet<>();
  private final Map<Path, Backoff> backoffs = new HashMap<>();
  private boolean running;
  private boolean closed;
  private int generation;
  private WatchService watchService;
  private Thread eventThread;
  private ScheduledFuture<?> ticker;

  /** A plugin in the actual state of the world. */
  private static final class Registered {
    final SocketFiles.Identity id;
    final String name;
    PluginConnection connection; // null until connectClient succeeded (or if it failed)

    Registered(SocketFiles.Identity id, String name) {
      this.id = id;
      this.name = name;
    }
  }

  private record Backoff(long notBeforeNanos, Duration delay) {}

  PluginWatcher(KubeletDouble kubelet, Path root, ThreadFactory threads) {
    this.kubelet = kubelet;
    this.root = root;
    this.threads = threads;
  }

  Path root() {
    return root;
  }

  /** Creates the directory, starts watching it and starts the reconcile loop. */
  void start() throws IOException {
    synchronized (lock) {
      if (closed || watchService != null) {
        running = !closed;
        return;
      }
      Files.createDirectories(root);
      watchService = FileSystems.getDefault().newWatchService();
      watchTree(root);
      eventThread = threads.newThread(this::watchLoop);
      eventThread.start();
      running = true;
      ticker =
          kubelet
              .scheduler()
              .scheduleWithFixedDelay(
                  this::reconcile, 0, RECONCILE_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** The kubelet died: forget every registration (the double closes the connections). */
  void suspend() {
    synchronized (lock) {
      running = false;
      generation++;
      actual.clear();
      inFlight.clear();
      backoffs.clear();
    }
  }

  /** A new kubelet: walk the directory again and register what is there. */
  void resume() {
    synchronized (lock) {
      running = !closed && watchService != null;
    }
    trigger();
  }

  @Override
  public void close() {
    WatchService ws;
    Thread thread;
    synchronized (lock) {
      closed = true;
      running = false;
      generation++;
      ws = watchService;
      thread = eventThread;
      if (ticker != null) {
        ticker.cancel(false);
      }
    }
    if (ws != null) {
      try {
        ws.close();
      } catch (IOException e) {
        log.debug("kubelet double: closing the watch service", e);
      }
    }
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void watchTree(Path dir) throws IOException {
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs)
              throws IOException {
            d.register(
                watchService,
                StandardWatchEventKinds.ENTRY_CREATE,
                StandardWatchEventKinds.ENTRY_DELETE,
                StandardWatchEventKinds.ENTRY_MODIFY);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) {
            return FileVisitResult.CONTINUE;
          }
        });
  }

  private void watchLoop() {
    while (true) {
      WatchKey key;
      try {
        key = watchService.take();
      } catch (InterruptedException | ClosedWatchServiceException e) {
        return;
      }
      Path dir = (Path) key.watchable();
      for (WatchEvent<?> event : key.pollEvents()) {
        if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) {
          Path child = dir.resolve((Path) event.context());
          if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
            try {
              watchTree(child);
            } catch (IOException | ClosedWatchServiceException e) {
              log.debug("kubelet double: cannot watch {}", child, e);
            }
          }
        }
      }
      key.reset();
      trigger();
    }
  }

  private void trigger() {
    try {
      kubelet.scheduler().execute(this::reconcile);
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  /** The non-dot socket files under the root, with their identities. */
  private Map<Path, SocketFiles.Identity> scan() {
    Map<Path, SocketFiles.Identity> found = new HashMap<>();
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
              if (!file.getFileName().toString().startsWith(".") && SocketFiles.isSocket(file)) {
                SocketFiles.identity(file).ifPresent(id -> found.put(file, id));
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      log.debug("kubelet double: cannot scan {}", root, e);
    }
    return found;
  }

  private void reconcile() {
    try {
      reconcileOnce();
    } catch (RuntimeException e) {
      log.warn("kubelet double: plugin watcher reconcile failed", e);
    }
  }

  private void reconcileOnce() {
    Map<Path, SocketFiles.Identity> desired = scan();
    List<Registered> gone = new ArrayList<>();
    List<Runnable> ops = new ArrayList<>();
    synchronized (lock) {
      if (!running) {
        return;
      }
      for (var it = actual.entrySet().iterator(); it.hasNext(); ) {
        var entry = it.next();
        Path path = entry.getKey();
        if (inFlight.contains(path)) {
          continue; // operations on one socket are serialized
        }
        if (!entry.getValue().id.equals(desired.get(path))) {
          it.remove();
          gone.add(entry.getValue());
          log.info("kubelet double: plugin socket {} removed or re-created", path);
        }
      }
      long now = System.nanoTime();
      int gen = generation;
      for (var entry : desired.entrySet()) {
        Path path = entry.getKey();
        if (actual.containsKey(path) || inFlight.contains(path)) {
          continue;
        }
        Backoff backoff = backoffs.get(path);
        if (backoff != null && now - backoff.notBeforeNanos() < 0) {
          continue;
        }
        inFlight.add(path);
        SocketFiles.Identity id = entry.getValue();
        ops.add(() -> register(path, id, gen));
      }
    }
    for (Registered r : gone) {
      kubelet.deregisterPlugin(r.name, r.connection);
    }
    for (Runnable op : ops) {
      try {
        kubelet.executor().execute(op);
      } catch (RejectedExecutionException e) {
        return;
      }
    }
  }

  /** {@code GenerateRegisterPluginFunc}, for the DevicePlugin handler only. */
  private void register(Path socket, SocketFiles.Identity id, int gen) {
    boolean failed = true;
    ManagedChannel channel = null;
    try {
      channel = kubelet.openAuxChannel(socket);
      String dialError = kubelet.awaitReady(channel);
      if (dialError != null) {
        fail(
            socket,
            "RegisterPlugin error -- dial failed at socket "
                + socket
                + ", err: failed to dial socket "
                + socket
                + ", err: "
                + dialError);
        return;
      }
      RegistrationGrpc.RegistrationBlockingStub stub =
          RegistrationGrpc.newBlockingStub(kubelet.counted(channel, null));
      PluginInfo info;
      try {
        info =
            stub.withDeadlineAfter(GET_INFO_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .getInfo(InfoRequest.getDefaultInstance());
      } catch (StatusRuntimeException e) {
        fail(
            socket,
            "RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket "
                + socket
                + ", err: "
                + GoText.rpcError(e));
        return;
      }
      if (!DEVICE_PLUGIN_TYPE.equals(info.getType())) {
        String msg =
            "RegisterPlugin error -- no handler registered for plugin type: "
                + info.getType()
                + " at socket "
                + socket;
        reject(info.getName(), socket, msg);
        notify(stub, socket, false, msg);
        fail(socket, msg);
        return;
      }
      String endpoint = info.getEndpoint().isEmpty() ? socket.toString() : info.getEndpoint();
      Optional<String> invalid = validate(info);
      if (invalid.isPresent()) {
        String msg = "RegisterPlugin error -- plugin validation failed with err: " + invalid.get();
        reject(info.getName(), socket, msg);
        notify(stub, socket, false, msg);
        fail(socket, "RegisterPlugin error -- pluginHandler.ValidatePluginFunc failed");
        return;
      }
      Registered registered = new Registered(id, info.getName());
      synchronized (lock) {
        if (gen != generation) {
          return; // the kubelet restarted meanwhile
        }
        actual.put(socket, registered); // before RegisterPlugin, as the kubelet does
      }
      failed = false;
      PluginConnection connection;
      try {
        connection =
            kubelet.connectClient(
                info.getName(), Path.of(endpoint), Mode.PLUGIN_WATCHER, socket, null);
      } catch (RegistrationException e) {
        String msg =
            "RegisterPlugin error -- plugin registration failed with err: " + e.getMessage();
        reject(info.getName(), socket, msg);
        notify(stub, socket, false, msg);
        return;
      }
      boolean stale;
      synchronized (lock) {
        stale = gen != generation || actual.get(socket) != registered;
        if (!stale) {
          registered.connection = connection;
        }
      }
      if (stale) {
        kubelet.deregisterPlugin(info.getName(), connection);
        return;
      }
      Optional<String> notifyFailure = notify(stub, socket, true, "");
      if (notifyFailure.isPresent()) {
        kubelet.recordWatcherError(
            "RegisterPlugin error -- failed to send registration status at socket "
                + socket
                + ", err: "
                + notifyFailure.get());
      }
    } catch (IllegalStateException closing) {
      log.debug("kubelet double: registration of {} abandoned", socket, closing);
    } finally {
      if (channel != null) {
        kubelet.closeAuxChannel(channel);
      }
      synchronized (lock) {
        inFlight.remove(socket);
        if (failed && gen == generation) {
          Backoff previous = backoffs.get(socket);
          Duration delay =
              previous == null
                  ? INITIAL_BACKOFF
                  : min(previous.delay().multipliedBy(2), MAX_BACKOFF);
          backoffs.put(socket, new Backoff(System.nanoTime() + delay.toNanos(), delay));
        } else if (!failed) {
          backoffs.remove(socket);
        }
      }
      kubelet.signal();
    }
  }

  /** The DevicePlugin handler's {@code ValidatePlugin}. */
  private static Optional<String> validate(PluginInfo info) {
    if (!info.getSupportedVersionsList().contains(KubeletDouble.VERSION)) {
      return Optional.of(
          "manager version, "
              + KubeletDouble.VERSION
              + ", is not among plugin supported versions "
              + GoText.list(info.getSupportedVersionsList()));
    }
    if (!ExtendedResourceNames.isValid(info.getName())) {
      return Optional.of(
          "invalid name of device plugin socket: the ResourceName "
              + GoText.quote(info.getName())
              + " is invalid");
    }
    return Optional.empty();
  }

  private Optional<String> notify(
      RegistrationGrpc.RegistrationBlockingStub stub, Path socket, boolean ok, String error) {
    Optional<String> failure = Optional.empty();
    try {
      stub.withDeadlineAfter(NOTIFY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .notifyRegistrationStatus(
              RegistrationStatus.newBuilder().setPluginRegistered(ok).setError(error).build());
    } catch (StatusRuntimeException e) {
      failure = Optional.of(GoText.rpcError(e));
    }
    kubelet.recordNotification(new WatcherNotification(socket, ok, error, Instant.now(), failure));
    return failure;
  }

  private void reject(String name, Path socket, String message) {
    kubelet.recordRejection(Mode.PLUGIN_WATCHER, name, socket.toString(), message);
  }

  private void fail(Path socket, String message) {
    kubelet.recordWatcherError(message);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
