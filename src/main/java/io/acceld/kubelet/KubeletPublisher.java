package io.acceld.kubelet;

import io.acceld.allocation.DeviceChooser;
import io.acceld.config.AgentConfig;
import io.acceld.config.Settings;
import io.acceld.ledger.Availability;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Publisher;
import io.acceld.transport.SocketIdentity;
import io.acceld.transport.SocketLock;
import io.acceld.transport.UnixGrpc;
import io.acceld.util.GuardedBy;
import io.acceld.util.NamedThreads;
import io.acceld.util.OperatorError;
import io.acceld.util.RateLimitedLog;
import io.grpc.ServerInterceptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the ledger's snapshots to the kubelet: one {@link ResourcePlugin} (a device-plugin
 * server and its registration) per advertised resource, started and stopped as resources appear and
 * disappear, plus the resources' CDI specs. Its one input is {@link #reconcile}, called with each
 * new {@link Availability}; {@link KubeletRestartWatch} tells the plugins when the kubelet
 * restarted. Allocate leases through the same {@link DeviceLedger}.
 *
 * <p>Locks: this object's {@link #lock} guards the set of plugins; each plugin has its own lock for
 * its server and registration, always taken after this one (never the other way round).
 */
public final class KubeletPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeletPublisher.class);

  /**
   * How often the kubelet's directories are looked for while they do not exist: there is nothing to
   * watch yet, so this poll is the only way to see them appear (the watch's backstop, {@link
   * KubeletRestartWatch#POLL}, is longer because inotify covers a directory that exists).
   */
  static final Duration DIRECTORY_POLL = Duration.ofSeconds(1);

  public static final String KUBELET_SOCKET = KubeletSettings.KUBELET_SOCKET;

  private final KubeletSettings settings;

  /** The transport to and from the kubelet; the caller's, which closes it after this. */
  private final UnixGrpc grpc;

  private final ScheduledExecutorService scheduler =
      Executors.newScheduledThreadPool(2, new NamedThreads("acceld-kubelet"));
  private final ResourcePlugin.Context context;
  private final Optional<CdiSpecSync> cdi;
  private final Duration cdiCheckInterval;
  private final RateLimitedLog lockFailures = new RateLimitedLog(log, Duration.ofMinutes(5));

  private final Object lock = new Object();

  @GuardedBy("lock")
  private final Map<String, ResourcePlugin> plugins = new LinkedHashMap<>();

  @GuardedBy("lock")
  private KubeletRestartWatch watch;

  @GuardedBy("lock")
  private boolean closed;

  /**
   * Set during the first serve from {@link #start}: a resource whose lock another agent holds then
   * stops the start (nothing touched), instead of being skipped as it is later.
   */
  @GuardedBy("lock")
  private boolean starting;

  /** Started, but the kubelet's directories do not exist yet: alive, not ready. */
  @GuardedBy("lock")
  private boolean waiting;

  // Every name served since start: a resource whose devices are briefly gone is still ours.
  @GuardedBy("lock")
  private final Set<String> everServed = new HashSet<>();

  private final DeviceLedger ledger;

  /**
   * Counts registration outcomes (a success, a failure, a registration lost), for {@link
   * #awaitFirstOutcome}. Its own monitor, never held with {@link #lock} or a plugin's: the outcomes
   * arrive under a plugin's lock, which a caller holding {@link #lock} may be waiting for.
   */
  private final Object outcomes = new Object();

  @GuardedBy("outcomes")
  private long outcomeCount;

  @GuardedBy("outcomes")
  private boolean anyFailed;

  public KubeletPublisher(
      AgentConfig config,
      DeviceChooser preferred,
      PluginEvents events,
      List<ServerInterceptor> interceptors,
      DeviceLedger ledger,
      UnixGrpc grpc) {
    this.settings = KubeletSettings.from(config);
    this.grpc = grpc;
    this.ledger = ledger;
    this.context =
        new ResourcePlugin.Context(
            settings,
            settings.responder(),
            preferred,
            counting(events),
            List.copyOf(interceptors),
            grpc,
            scheduler,
            new KubeletRegistrar(settings.kubeletSocket(), grpc, scheduler),
            ledger,
            new PendingAllocations(Clock.systemUTC()));
    this.cdi =
        settings
            .cdiDir()
            .map(dir -> new CdiSpecSync(new CdiSpecWriter(dir, settings.hostDevPrefix())));
    this.cdiCheckInterval = config.get(Settings.CDI_CHECK_INTERVAL);
  }

  /**
   * Serves what the ledger shows now and follows its changes; if the kubelet's directories do not
   * exist yet, waits for them instead (see {@link #awaitKubeletDirectories}).
   */
  public void start() throws IOException {
    announceUnregistered(ledger.current());
    List<Path> missing = missingDirectories();
    if (missing.isEmpty()) {
      synchronized (lock) {
        starting = true;
      }
      try {
        serve();
      } finally {
        synchronized (lock) {
          starting = false;
        }
      }
      return;
    }
    synchronized (lock) {
      waiting = true;
    }
    // Creating them would fake a kubelet where there is none (a host without one, or a wrong
    // --device-plugin-dir), and the real kubelet would later find our files in its way.
    log.info(
        "Waiting for the kubelet: {} does not exist yet; serving once it does (it is the kubelet's"
            + " to create: check --device-plugin-dir and --plugins-registry-dir)",
        missing.stream().map(Path::toString).collect(Collectors.joining(" and ")));
    scheduler.schedule(
        this::awaitKubeletDirectories, DIRECTORY_POLL.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Reports every resource the node has as not registered before anything is tried, so that the
   * registration series exist at 0 from the start and an alert on "not registered" fires even when
   * registration never begins (no kubelet directory, a kubelet that never answers).
   */
  private void announceUnregistered(Availability availability) {
    for (String resource : availability.inventory().resources()) {
      context
          .events()
          .registered(
              ResourceView.of(availability, resource, settings.sharing().apply(resource))
                  .advertisedName(),
              false);
    }
  }

  private List<Path> missingDirectories() {
    return settings.watchedDirs().stream().filter(d -> !Files.isDirectory(d)).toList();
  }

  /** On the scheduler, once a poll: serves when the directories exist, else looks again. */
  private void awaitKubeletDirectories() {
    synchronized (lock) {
      if (closed) {
        return;
      }
    }
    if (missingDirectories().isEmpty()) {
      try {
        serve();
        synchronized (lock) {
          waiting = false;
        }
        log.info("The kubelet's directories exist now; serving");
        return;
      } catch (IOException | RuntimeException e) {
        log.warn("Cannot serve the kubelet yet ({}); trying again", e.toString());
      }
    }
    scheduler.schedule(
        this::awaitKubeletDirectories, DIRECTORY_POLL.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void serve() throws IOException {
    KubeletRestartWatch started = new KubeletRestartWatch(settings, this::onSocketsChanged);
    synchronized (lock) {
      if (closed) {
        started.close();
        return;
      }
      watch = started;
    }
    log.info(
        "Serving the kubelet over Unix sockets with {} ({} registration)",
        grpc.usesEpoll() ? "epoll" : "NIO (epoll unavailable)",
        settings.mode().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    reconcile(ledger.current());
    ledger.subscribeIgnoring(Publisher.KUBELET, this::reconcile);
    started.start();
    if (cdi.isPresent() && !cdiCheckInterval.isZero()) {
      scheduler.scheduleWithFixedDelay(
          this::recheck,
          cdiCheckInterval.toMillis(),
          cdiCheckInterval.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  /**
   * On a timer: serves any resource skipped because another agent held its lock (it may have
   * exited), and re-reads every CDI spec, rewriting those someone deleted or changed; the runtime
   * resolves the CDI names Allocate returns from these files.
   */
  private void recheck() {
    try {
      reconcile(ledger.current());
      synchronized (lock) {
        if (closed) {
          return;
        }
        for (ResourcePlugin plugin : plugins.values()) {
          if (plugin.holdsLock()) {
            cdi.get().verify(plugin.view().resource(), physical(plugin.view()));
          }
        }
      }
    } catch (RuntimeException e) {
      lockFailures.warn("Re-checking the CDI specs failed: {}", e.toString());
    }
  }

  /**
   * Brings the servers in line with {@code availability}: starts new ones and sends each running
   * one its new view. A resource whose devices are all gone keeps its server and registration with
   * an empty list, so the kubelet's capacity for it drops to 0 (a MIG profile removed by a
   * re-partition, the last GPU unplugged) instead of lingering as stale capacity. The ListAndWatch
   * broadcast comes before any file I/O, so a CDI write never delays what the kubelet is told; a
   * new resource's spec is written before its server starts, so Allocate never names a device the
   * spec lacks.
   */
  public void reconcile(Availability availability) {
    synchronized (lock) {
      if (closed) {
        return;
      }
      Map<String, ResourceView> desired = new LinkedHashMap<>();
      for (String resource : availability.inventory().resources()) {
        ResourceView view =
            ResourceView.of(availability, resource, settings.sharing().apply(resource));
        desired.put(view.advertisedName(), view);
      }
      for (ResourcePlugin plugin : plugins.values()) {
        if (!desired.containsKey(plugin.name())) {
          if (!plugin.view().devices().isEmpty()) {
            log.info("Resource {} has no devices any more; advertising it empty", plugin.name());
          }
          desired.put(plugin.name(), plugin.view().emptied(availability));
        }
      }
      desired.forEach(
          (name, view) -> {
            ResourcePlugin plugin = plugins.get(name);
            if (plugin == null) {
              SocketLock taken;
              try {
                taken = SocketLock.acquire(settings.socketOf(name));
              } catch (SocketLock.HeldElsewhere e) {
                heldElsewhere(name, e);
                return; // another agent serves it: touch nothing of it
              } catch (IOException e) {
                // Not another agent (a directory we cannot write, say): the server takes the lock
                // when it starts, retrying, and the CDI spec waits until it holds it.
                taken = null;
              }
              plugin = new ResourcePlugin(view, context, taken);
              syncCdi(plugin, view);
              plugins.put(name, plugin);
              everServed.add(name);
              plugin.start();
            } else {
              plugin.update(view);
            }
          });
      // File I/O last: every stream already has its list.
      desired.forEach(
          (name, view) -> {
            ResourcePlugin plugin = plugins.get(name);
            if (plugin != null) {
              syncCdi(plugin, view);
            }
          });
    }
  }

  /**
   * Another agent holds the lock of {@code name}: during {@link #start} that stops the start, with
   * nothing touched; later (a resource that appeared) it is skipped, and retried by the recheck.
   */
  @GuardedBy("lock")
  private void heldElsewhere(String name, SocketLock.HeldElsewhere e) {
    if (starting) {
      throw new OperatorError(
          OperatorError.Kind.ALREADY_RUNNING,
          e.getMessage() + "; this agent exits without touching its sockets or CDI specs");
    }
    lockFailures.error("Not serving {}: {}", name, e.getMessage());
  }

  private static List<io.acceld.inventory.Device> physical(ResourceView view) {
    return view.devices().stream().map(AdvertisedDevice::device).distinct().toList();
  }

  /** Writes {@code view}'s CDI spec, only while {@code plugin} holds the resource's lock. */
  private void syncCdi(ResourcePlugin plugin, ResourceView view) {
    if (plugin.holdsLock()) {
      cdi.ifPresent(c -> c.sync(view.resource(), physical(view)));
    }
  }

  private void removeCdi(ResourcePlugin plugin) {
    if (plugin.holdsLock()) {
      cdi.ifPresent(c -> c.remove(plugin.view().resource()));
    }
  }

  /** From the watch thread: every plugin checks its socket, and re-registers after a restart. */
  private void onSocketsChanged(SocketIdentity newKubelet) {
    synchronized (lock) {
      if (closed) {
        return;
      }
      plugins.values().forEach(p -> p.onSocketsChanged(newKubelet));
    }
  }

  /** Whether the socket watcher still runs (it restarts servers after kubelet restarts). */
  public boolean alive() {
    synchronized (lock) {
      return !closed && (waiting || watch != null && watch.alive());
    }
  }

  /**
   * Waits until every resource served is registered, a Register has failed, or {@code max} has
   * passed, whichever is first; returns at once while the kubelet's directories do not exist. For
   * whoever has work to do that can wait, and that would otherwise take a core from registration.
   *
   * @return whether every resource is registered
   */
  public boolean awaitFirstOutcome(Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (true) {
      long seen;
      synchronized (outcomes) {
        seen = outcomeCount;
        if (anyFailed) {
          return ready();
        }
      }
      synchronized (lock) {
        if (closed || waiting) {
          return false;
        }
      }
      if (ready()) {
        return true;
      }
      synchronized (outcomes) {
        while (outcomeCount == seen) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return ready();
          }
          TimeUnit.NANOSECONDS.timedWait(outcomes, left);
        }
      }
    }
  }

  private PluginEvents counting(PluginEvents events) {
    return new PluginEvents() {
      @Override
      public void allocated(String resource, int devices) {
        events.allocated(resource, devices);
      }

      @Override
      public void streams(String resource, int open) {
        events.streams(resource, open);
      }

      @Override
      public void registered(String resource, boolean registered) {
        events.registered(resource, registered);
        outcome(false);
      }

      @Override
      public void registerFailed(String resource) {
        events.registerFailed(resource);
        outcome(true);
      }
    };
  }

  private void outcome(boolean failed) {
    synchronized (outcomes) {
      outcomeCount++;
      anyFailed |= failed;
      outcomes.notifyAll();
    }
  }

  /** Registration state by advertised resource name. */
  public Map<String, Boolean> registrations() {
    synchronized (lock) {
      Map<String, Boolean> state = new LinkedHashMap<>();
      plugins.forEach((name, p) -> state.put(name, p.registered()));
      return state;
    }
  }

  /** Whether {@code advertisedName} is a resource this agent serves (or served since start). */
  public boolean serves(String advertisedName) {
    synchronized (lock) {
      return everServed.contains(advertisedName);
    }
  }

  /**
   * True once every resource is registered (or, with registration none, serving); never while
   * waiting for the kubelet's directories.
   */
  public boolean ready() {
    synchronized (lock) {
      return !waiting && plugins.values().stream().allMatch(ResourcePlugin::registered);
    }
  }

  /**
   * The file name of acceld's socket for {@code advertisedName} ({@code
   * acceld-nvidia.com_gpu.sock}), in the device-plugin directory (or, with the plugin watcher, the
   * plugins registry), for tools that dial it as the kubelet does.
   */
  public static String socketFileName(String advertisedName) {
    return KubeletSettings.socketName(advertisedName);
  }

  /** The socket serving {@code advertisedName}, if it has a server. */
  public Optional<Path> socketOf(String advertisedName) {
    synchronized (lock) {
      return Optional.ofNullable(plugins.get(advertisedName)).map(ResourcePlugin::socket);
    }
  }

  @Override
  public void close() {
    KubeletRestartWatch stopping;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      stopping = watch;
    }
    if (stopping != null) {
      stopping.close(); // off the lock: its thread may be waiting for it
    }
    synchronized (lock) {
      for (ResourcePlugin plugin : plugins.values()) {
        removeCdi(plugin); // while its lock is still held
        plugin.close();
      }
      plugins.clear();
    }
    scheduler.shutdownNow();
  }
}
