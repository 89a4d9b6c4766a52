package io.acceld.kubelet;

import io.acceld.allocation.DeviceChooser;
import io.acceld.config.RegistrationMode;
import io.acceld.ledger.DeviceLedger;
import io.acceld.proto.deviceplugin.v1beta1.RegisterRequest;
import io.acceld.proto.pluginregistration.PluginInfo;
import io.acceld.transport.PluginRegistrationService;
import io.acceld.transport.SocketIdentity;
import io.acceld.transport.SocketLock;
import io.acceld.transport.UnixGrpc;
import io.acceld.transport.UnixSocketServer;
import io.acceld.util.GuardedBy;
import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One advertised resource towards the kubelet: its DevicePlugin service, its server on its socket,
 * and its registration, through the server's whole life (serve, register, restart after a kubelet
 * restart, stop).
 *
 * <p>Each start of the server is a new <em>generation</em>. Everything that changes the server or
 * its registration happens under this resource's own {@link #lock}, and each timer and registration
 * callback belongs to one generation and is dropped once that generation ended; so two quick
 * kubelet restarts cannot interleave the stop of one generation with a Register for the next, and a
 * Register is never sent for a server that is not serving on the socket it bound.
 */
final class ResourcePlugin implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ResourcePlugin.class);

  /** The plugin type plugin-watcher's GetInfo answers for a device plugin. */
  static final String DEVICE_PLUGIN_TYPE = "DevicePlugin";

  /** The device-plugin API version this plugin speaks, in GetInfo and Register. */
  static final String API_VERSION = "v1beta1";

  /**
   * After stopping a server, give the kubelet a moment to see the stream end before re-listening
   * (the kubelet's re-registration race, kubelet-device-plugin.md §3.5).
   */
  static final Duration RESTART_PAUSE = Duration.ofMillis(100);

  /**
   * Every handler of these servers is memory work that never blocks, and bounded whatever the
   * client sends (the slowest, a preferred allocation over 64 devices, stops its search after a
   * fixed budget of about a millisecond, and answers at most a few container requests per call), so
   * calls run on the transport's own threads: a hop to a call pool costs more than the work and, on
   * a small node, multiplies the latency tail (see BENCHMARKS.md).
   */
  private static final Executor DIRECT = Runnable::run;

  /** Everything a plugin needs from its publisher, shared by all resources. */
  record Context(
      KubeletSettings settings,
      AllocationResponder responder,
      DeviceChooser preferred,
      PluginEvents events,
      List<ServerInterceptor> interceptors,
      UnixGrpc grpc,
      ScheduledExecutorService scheduler,
      KubeletRegistrar registrar,
      DeviceLedger ledger,
      PendingAllocations pending) {}

  private final String name;
  private final Context context;
  private final DevicePluginService service;
  private final UnixSocketServer server;
  private final KubeletCalls calls = new KubeletCalls();

  /** Guards the server's life and the registration; one per resource. */
  private final Object lock = new Object();

  @GuardedBy("lock")
  private long generation;

  @GuardedBy("lock")
  private KubeletRegistrar.Attempt attempt;

  @GuardedBy("lock")
  private boolean restartPending;

  @GuardedBy("lock")
  private boolean startFailureLogged;

  @GuardedBy("lock")
  private boolean closed;

  /** Written under {@link #lock}, read by readiness without it. */
  private volatile boolean registered;

  /**
   * @param socketLock the resource socket's lock, already taken; released when this closes
   */
  ResourcePlugin(ResourceView view, Context context, SocketLock socketLock) {
    this.name = view.advertisedName();
    this.context = context;
    KubeletSettings settings = context.settings();
    this.service =
        new DevicePluginService(
            view,
            settings.options(),
            context.responder(),
            context.preferred(),
            context.events(),
            context.ledger(),
            context.pending());
    List<BindableService> services = new ArrayList<>(List.of(service));
    if (settings.mode() == RegistrationMode.PLUGIN_WATCHER) {
      services.add(
          new PluginRegistrationService(
              PluginInfo.newBuilder()
                  .setType(DEVICE_PLUGIN_TYPE)
                  .setName(name)
                  .setEndpoint("") // this socket serves the DevicePlugin service too
                  .addSupportedVersions(API_VERSION)
                  .build(),
              name,
              this::onWatcherStatus));
    }
    List<ServerInterceptor> interceptors = new ArrayList<>(context.interceptors());
    interceptors.add(calls);
    this.server =
        new UnixSocketServer(
            name,
            settings.socketOf(name),
            services,
            interceptors,
            context.grpc(),
            DIRECT,
            socketLock);
  }

  String name() {
    return name;
  }

  Path socket() {
    return server.socket();
  }

  ResourceView view() {
    return service.view();
  }

  /** Whether this resource's socket lock is held: only then may its CDI spec be written. */
  boolean holdsLock() {
    return server.holdsLock();
  }

  boolean registered() {
    return registered;
  }

  /** Sends {@code view} to the kubelet's streams (if the list changed); no file I/O. */
  void update(ResourceView view) {
    service.update(view);
  }

  /** Serves and registers the first generation. */
  void start() {
    synchronized (lock) {
      serve();
    }
  }

  /**
   * The watched directories changed (or the poll came round): serve again what a kubelet restart
   * broke.
   *
   * @param newKubelet the identity of a {@code kubelet.sock} that was just (re-)created, or null
   */
  void onSocketsChanged(SocketIdentity newKubelet) {
    synchronized (lock) {
      if (closed || restartPending) {
        return; // it serves, and registers from scratch, after the restart pause
      }
      if (!server.isServing()) {
        serve(); // an earlier start failed
      } else if (!server.socketIntact()) {
        log.info("Our socket {} disappeared; serving it again", server.socket());
        restart();
      } else if (newKubelet != null) {
        if (attempt != null && !attempt.engagedWithOtherThan(newKubelet)) {
          // Nothing of this server reached an older kubelet: register with the new one, no restart.
          attempt.poke();
        } else {
          // A Register that the old kubelet accepted (or may still accept) died with it, and so
          // did its stream: end this server's streams and register afresh.
          restart();
        }
      }
    }
  }

  @GuardedBy("lock")
  private void serve() {
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
            KubeletRestartWatch.POLL.toSeconds());
        startFailureLogged = true;
      }
      return;
    }
    long serving = ++generation;
    switch (context.settings().mode()) {
      case CLASSIC -> attempt = context.registrar().start(lock, new Generation(serving), calls);
      case NONE -> setRegistered(true);
      case PLUGIN_WATCHER -> {
        // Registered when the kubelet says so through NotifyRegistrationStatus.
      }
    }
  }

  /** What the registrar registers: this plugin's server, as long as it is generation {@code g}. */
  private final class Generation implements KubeletRegistrar.Target {
    private final long g;

    Generation(long g) {
      this.g = g;
    }

    @Override
    public RegisterRequest request() {
      return RegisterRequest.newBuilder()
          .setVersion(API_VERSION)
          .setEndpoint(server.socket().getFileName().toString())
          .setResourceName(name)
          .setOptions(context.settings().options())
          .build();
    }

    @Override
    public boolean readyToRegister() {
      return generation == g && server.isServing() && server.socketIntact();
    }

    @Override
    public void onRegistered(boolean ok) {
      if (generation == g) {
        setRegistered(ok);
      }
    }

    @Override
    public void onRegisterFailed() {
      if (generation == g) {
        context.events().registerFailed(name);
      }
    }

    @Override
    public void onSocketLost() {
      if (generation == g && !closed) {
        restart();
      }
    }
  }

  @GuardedBy("lock")
  private void setRegistered(boolean ok) {
    registered = ok;
    context.events().registered(name, ok);
  }

  private void onWatcherStatus(boolean ok) {
    synchronized (lock) {
      if (closed) {
        return;
      }
      setRegistered(ok);
      if (!ok) {
        // Re-creating the socket is the only way to make the plugin watcher try again.
        restart();
      }
    }
  }

  /**
   * Stops serving now and serves again after {@link #RESTART_PAUSE}: the pause lets the kubelet see
   * the old stream end before the new registration.
   */
  @GuardedBy("lock")
  private void restart() {
    stopServing();
    restartPending = true;
    long stopped = generation;
    try {
      context
          .scheduler()
          .schedule(
              () -> {
                synchronized (lock) {
                  if (!closed && restartPending && generation == stopped) {
                    serve();
                  }
                }
              },
              RESTART_PAUSE.toMillis(),
              TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("Not serving {} again: shutting down", name);
    }
  }

  @GuardedBy("lock")
  private void stopServing() {
    if (attempt != null) {
      attempt.cancel();
      attempt = null;
    }
    generation++; // whatever the stopped generation scheduled is void from here on
    if (registered) {
      setRegistered(false);
    }
    server.stop();
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      restartPending = false;
      stopServing();
      server.close();
    }
  }
}
