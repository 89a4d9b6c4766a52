package io.acceld.kubelet;

import io.acceld.allocation.DeviceChooser;
import io.acceld.config.AgentConfig;
import io.acceld.config.RegistrationMode;
import io.acceld.config.Settings;
import io.acceld.inventory.Device;
import io.acceld.ledger.Availability;
import io.acceld.ledger.DeviceLedger;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.proto.deviceplugin.v1beta1.RegisterRequest;
import io.acceld.transport.UnixGrpc;
import io.acceld.util.DirectoryWatcher;
import io.acceld.util.NamedThreads;
import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the inventory to the kubelet: one device-plugin server per resource, started and
 * stopped as resources appear and disappear, each registered the configured way. Watches the
 * kubelet's directories and, when the kubelet restarts (a new {@code kubelet.sock}) or our socket
 * disappears, stops the server (ending the old stream), listens again and registers again.
 */
public final class KubeletPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeletPublisher.class);

  public static final String KUBELET_SOCKET = "kubelet.sock";
  static final Duration WATCH_POLL = Duration.ofSeconds(1);

  /**
   * After stopping a server, give the kubelet a moment to see the stream end before re-listening.
   */
  static final Duration RESTART_PAUSE = Duration.ofMillis(100);

  private final AgentConfig config;
  private final RegistrationMode mode;
  private final Path pluginDir;
  private final Path registryDir;
  private final Path kubeletSocket;
  private final DeviceChooser preferred;
  private final PluginEvents events;
  private final List<ServerInterceptor> interceptors;
  private final AllocationResponder responder;
  private final Optional<CdiSpecWriter> cdi;
  private final DevicePluginOptions options;
  private final DeviceLedger ledger;
  private final PendingAllocations pending;

  private final UnixGrpc grpc = new UnixGrpc("acceld-grpc", 2);

  /**
   * Every handler of these servers is memory work that never blocks (the slowest, a preferred
   * allocation over 64 devices, takes well under a millisecond), so calls run on the transport's
   * own threads: a hop to a call pool costs more than the work and, on a small node, multiplies the
   * latency tail (see BENCHMARKS.md).
   */
  private static final Executor DIRECT = Runnable::run;

  private final ScheduledExecutorService scheduler =
      Executors.newScheduledThreadPool(2, new NamedThreads("acceld-kubelet"));
  private final KubeletRegistrar registrar;

  private final Map<String, Plugin> plugins = new LinkedHashMap<>();
  // Every name served since start: a resource whose devices are briefly gone is still ours.
  private final Set<String> everServed = new java.util.HashSet<>();
  private DirectoryWatcher watcher;
  private SocketIdentity kubeletKey;
  private boolean closed;

  public KubeletPublisher(
      AgentConfig config,
      DeviceChooser preferred,
      PluginEvents events,
      List<ServerInterceptor> interceptors,
      DeviceLedger ledger) {
    this.config = config;
    this.ledger = ledger;
    this.pending = new PendingAllocations(Clock.systemUTC());
    this.mode = config.get(Settings.KUBELET_REGISTRATION);
    this.pluginDir = config.get(Settings.DEVICE_PLUGIN_DIR);
    this.registryDir = config.get(Settings.PLUGINS_REGISTRY_DIR);
    this.kubeletSocket = pluginDir.resolve(KUBELET_SOCKET);
    this.preferred = preferred;
    this.events = events;
    this.interceptors = List.copyOf(interceptors);
    Path hostDev = config.get(Settings.HOST_DEV_PREFIX);
    boolean cdiOn = config.get(Settings.CDI);
    this.cdi =
        cdiOn
            ? Optional.of(new CdiSpecWriter(config.get(Settings.CDI_DIR), hostDev))
            : Optional.empty();
    this.responder =
        new AllocationResponder(
            hostDev,
            config.get(Settings.PASS_DEVICE_SPECS),
            cdiOn ? Optional.of(CdiSpecWriter.names()) : Optional.empty());
    this.options =
        DevicePluginOptions.newBuilder()
            .setPreStartRequired(config.get(Settings.PRE_START_REQUIRED))
            .setGetPreferredAllocationAvailable(true)
            .build();
    this.registrar = new KubeletRegistrar(kubeletSocket, grpc, scheduler);
  }

  /** Serves what the ledger shows now and follows its changes. */
  public void start() throws IOException {
    Path socketDir = mode == RegistrationMode.PLUGIN_WATCHER ? registryDir : pluginDir;
    List<Path> watched = new ArrayList<>(List.of(socketDir));
    if (mode == RegistrationMode.CLASSIC && !socketDir.equals(pluginDir)) {
      watched.add(pluginDir);
    }
    synchronized (this) {
      kubeletKey = SocketIdentity.of(kubeletSocket);
      watcher = DirectoryWatcher.creating("acceld-kubelet-watch", watched, WATCH_POLL, this::check);
    }
    log.info(
        "Serving the kubelet over Unix sockets with {} ({} registration)",
        grpc.usesEpoll() ? "epoll" : "NIO (epoll unavailable)",
        mode.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    reconcile(ledger.current());
    ledger.subscribe(this::reconcile);
    watcher.start();
  }

  /** Brings the servers in line with {@code availability}. */
  synchronized void reconcile(Availability availability) {
    if (closed) {
      return;
    }
    Map<String, ResourceView> desired = new LinkedHashMap<>();
    for (String resource : availability.inventory().resources()) {
      ResourceView view = ResourceView.of(availability, resource, config.sharing(resource));
      desired.put(view.advertisedName(), view);
    }
    for (var it = plugins.entrySet().iterator(); it.hasNext(); ) {
      var entry = it.next();
      if (!desired.containsKey(entry.getKey())) {
        log.info("Resource {} has no devices any more; stopping its server", entry.getKey());
        entry.getValue().close();
        it.remove();
      }
    }
    desired.forEach(
        (name, view) -> {
          Plugin plugin = plugins.get(name);
          if (plugin == null) {
            plugin = new Plugin(view);
            plugins.put(name, plugin);
            everServed.add(name);
            plugin.writeCdi(view);
            plugin.startAndRegister();
          } else {
            plugin.writeCdi(view);
            plugin.service.update(view);
          }
        });
  }

  /**
   * Compares the sockets with what we expect and restarts what a kubelet restart broke.
   *
   * @param created names created in the watched directories since the last check
   */
  synchronized void check(Set<String> created) {
    if (closed) {
      return;
    }
    boolean kubeletRestarted = false;
    if (mode == RegistrationMode.CLASSIC) {
      SocketIdentity key = SocketIdentity.of(kubeletSocket);
      // A new socket can reuse the old inode (ext4 does), so the CREATE event counts on its own.
      boolean recreated = created.contains(KUBELET_SOCKET) && key != null;
      if (key != null && (recreated || !key.equals(kubeletKey))) {
        kubeletRestarted = kubeletKey != null;
        log.info(
            "{} {}",
            kubeletSocket,
            kubeletRestarted ? "was re-created: the kubelet restarted" : "appeared");
      }
      if (key != null) {
        kubeletKey = key;
      }
    }
    for (Plugin plugin : plugins.values()) {
      if (plugin.restartPending) {
        continue; // it serves again after the restart pause
      }
      if (!plugin.server.isServing()) {
        plugin.startAndRegister();
      } else if (!plugin.server.socketIntact()) {
        log.info("Our socket {} disappeared; serving it again", plugin.server.socket());
        plugin.restart();
      } else if (kubeletRestarted) {
        // Every plugin, registered or not: a Register that the old kubelet accepted may still be
        // on its way back to us, and that registration died with the old kubelet.
        plugin.restart();
      }
    }
  }

  /** Whether the socket watcher still runs (it restarts servers after kubelet restarts). */
  public synchronized boolean alive() {
    return !closed && watcher != null && watcher.alive();
  }

  /** Registration state by advertised resource name. */
  public synchronized Map<String, Boolean> registrations() {
    Map<String, Boolean> state = new LinkedHashMap<>();
    plugins.forEach((name, p) -> state.put(name, p.registered));
    return state;
  }

  /** Whether {@code advertisedName} is a resource this agent serves (or served since start). */
  public synchronized boolean serves(String advertisedName) {
    return everServed.contains(advertisedName);
  }

  /** True once every resource is registered (or, with registration none, serving). */
  public synchronized boolean ready() {
    return plugins.values().stream().allMatch(p -> p.registered);
  }

  /** The socket serving {@code advertisedName}, if it has a server. */
  public synchronized Optional<Path> socketOf(String advertisedName) {
    return Optional.ofNullable(plugins.get(advertisedName)).map(p -> p.server.socket());
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    if (watcher != null) {
      watcher.close();
    }
    synchronized (this) {
      plugins.values().forEach(Plugin::close);
      plugins.clear();
    }
    scheduler.shutdownNow();
    grpc.close();
  }

  /** One resource's service, server and registration. Guarded by the publisher's lock. */
  private final class Plugin {
    final String name;
    final DevicePluginService service;
    final DevicePluginServer server;
    volatile boolean registered;
    private KubeletRegistrar.Attempt attempt;
    private List<Device> cdiDevices = List.of();
    private boolean startFailureLogged;
    private boolean restartPending;

    Plugin(ResourceView view) {
      this.name = view.advertisedName();
      this.service =
          new DevicePluginService(view, options, responder, preferred, events, ledger, pending);
      List<BindableService> services = new ArrayList<>(List.of(service));
      Path dir = pluginDir;
      if (mode == RegistrationMode.PLUGIN_WATCHER) {
        dir = registryDir;
        services.add(new PluginRegistrationService(name, this::onWatcherStatus));
      }
      this.server =
          new DevicePluginServer(
              name,
              dir.resolve(DevicePluginServer.socketName(name)),
              services,
              interceptors,
              grpc,
              DIRECT);
    }

    void startAndRegister() {
      restartPending = false;
      if (attempt != null) {
        attempt.cancel();
        attempt = null;
      }
      try {
        server.start();
        startFailureLogged = false;
      } catch (IOException e) {
        if (!startFailureLogged) {
          log.error(
              "Cannot serve {}: {}; retrying every {} s",
              name,
              e.getMessage(),
              WATCH_POLL.toSeconds());
          startFailureLogged = true;
        }
        return;
      }
      switch (mode) {
        case CLASSIC -> attempt = registrar.register(registerRequest(), this::onRegistered);
        case NONE -> onRegistered(true);
        case PLUGIN_WATCHER -> {
          // Registered when the kubelet says so through NotifyRegistrationStatus.
        }
      }
    }

    private RegisterRequest registerRequest() {
      return RegisterRequest.newBuilder()
          .setVersion(PluginRegistrationService.API_VERSION)
          .setEndpoint(server.socket().getFileName().toString())
          .setResourceName(name)
          .setOptions(options)
          .build();
    }

    private void onRegistered(boolean ok) {
      registered = ok;
      events.registered(name, ok);
    }

    private void onWatcherStatus(boolean ok) {
      onRegistered(ok);
      if (!ok) {
        scheduler.execute(
            () -> {
              synchronized (KubeletPublisher.this) {
                if (!closed && plugins.get(name) == this) {
                  restart();
                }
              }
            });
      }
    }

    /**
     * Stops serving now and serves again after {@link #RESTART_PAUSE}, off the lock: the pause lets
     * the kubelet see the old stream end before the new registration.
     */
    void restart() {
      stopServing();
      restartPending = true;
      scheduler.schedule(
          () -> {
            synchronized (KubeletPublisher.this) {
              if (!closed && plugins.get(name) == this && restartPending) {
                startAndRegister();
              }
            }
          },
          RESTART_PAUSE.toMillis(),
          TimeUnit.MILLISECONDS);
    }

    private void stopServing() {
      if (attempt != null) {
        attempt.cancel();
        attempt = null;
      }
      if (registered) {
        onRegistered(false);
      }
      server.stop();
    }

    void writeCdi(ResourceView view) {
      if (cdi.isEmpty()) {
        return;
      }
      List<Device> physical =
          view.devices().stream().map(AdvertisedDevice::device).distinct().toList();
      if (physical.equals(cdiDevices)) {
        return;
      }
      try {
        cdi.get().write(view.resource(), physical);
        cdiDevices = physical;
      } catch (IOException e) {
        log.error("Cannot write the CDI spec of {}: {}", view.resource(), e.toString());
      }
    }

    void close() {
      stopServing();
      server.close();
      if (cdi.isPresent() && !cdiDevices.isEmpty()) {
        try {
          cdi.get().remove(service.view().resource());
        } catch (IOException e) {
          log.debug("Cannot remove the CDI spec of {}: {}", name, e.toString());
        }
      }
    }
  }
}
