package io.acceld.dra;

import io.acceld.proto.pluginregistration.PluginInfo;
import io.acceld.transport.PluginRegistrationService;
import io.acceld.transport.UnixGrpc;
import io.acceld.transport.UnixSocketServer;
import io.acceld.util.AtomicFiles;
import io.acceld.util.DirectoryWatcher;
import io.acceld.util.GuardedBy;
import io.grpc.BindableService;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRA plugin's two sockets, served as the device plugin serves its own ({@link
 * UnixSocketServer}: a lock beside each, a stale socket removed, owner-only): the DRA socket {@code
 * <plugins>/<driver>/dra.sock} with the DRA (v1, v1beta1) and health services, and plugin-watcher's
 * registration socket {@code <registry>/<driver>-reg.sock}, whose GetInfo names the DRA socket. The
 * DRA socket is served first, so the kubelet finds it when registration sends it there. A socket
 * deleted or replaced by someone else (a kubelet clean-up, an operator) is served again: the
 * directory watch notices at once, its poll within {@link #POLL}.
 */
final class DraSockets implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DraSockets.class);

  /** The DRA plugin type plugin-watcher hands to its DRA handler. */
  static final String DRA_PLUGIN_TYPE = "DRAPlugin";

  /**
   * Service identifiers, not gRPC names, in preference order: a 1.34+ kubelet takes the first it
   * knows; health is advertised because it is served.
   */
  static final List<String> SUPPORTED_VERSIONS =
      List.of("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth");

  static final Duration POLL = Duration.ofSeconds(10);

  private final DraSettings settings;
  private final UnixSocketServer dra;
  private final UnixSocketServer registration;
  private final AtomicBoolean registered = new AtomicBoolean();

  @GuardedBy("this")
  private DirectoryWatcher watcher;

  @GuardedBy("this")
  private boolean closed;

  DraSockets(
      DraSettings settings, List<BindableService> draServices, UnixGrpc grpc, Executor calls) {
    this.settings = settings;
    this.dra =
        new UnixSocketServer(
            "DRA driver " + settings.driver(),
            settings.draSocket(),
            draServices,
            List.of(),
            grpc,
            calls);
    PluginInfo info =
        PluginInfo.newBuilder()
            .setType(DRA_PLUGIN_TYPE)
            .setName(settings.driver())
            .setEndpoint(settings.draSocket().toString())
            .addAllSupportedVersions(SUPPORTED_VERSIONS)
            .build();
    this.registration =
        new UnixSocketServer(
            "DRA registration of " + settings.driver(),
            settings.registrationSocket(),
            List.of(
                new PluginRegistrationService(
                    info, "DRA driver " + settings.driver(), registered::set)),
            List.of(),
            grpc,
            Runnable::run); // GetInfo and the status are memory work
  }

  synchronized void start() throws IOException {
    AtomicFiles.createDirectories(
        settings.draSocket().getParent(), AtomicFiles.DIRECTORY_OWNER_ONLY);
    AtomicFiles.createDirectories(settings.pluginsRegistryDir(), AtomicFiles.DIRECTORY_OWNER_ONLY);
    dra.start();
    registration.start();
    watcher =
        DirectoryWatcher.existing(
            "acceld-dra-sockets",
            List.of(settings.pluginsRegistryDir(), settings.draSocket().getParent()),
            POLL,
            wake -> check());
    watcher.start();
  }

  /** Whether the kubelet's last word on registration was yes. */
  boolean registered() {
    return registered.get();
  }

  Path draSocket() {
    return dra.socket();
  }

  Path registrationSocket() {
    return registration.socket();
  }

  /** Serves again any socket that is no longer the file it bound. */
  synchronized void check() {
    if (closed) {
      return;
    }
    // The DRA socket first: a registration re-created now must find it.
    for (UnixSocketServer server : List.of(dra, registration)) {
      if (!server.socketIntact()) {
        log.warn("{} is gone or replaced; serving {} on it again", server.socket(), server.name());
        server.stop();
        try {
          server.start();
        } catch (IOException e) {
          log.error(
              "Cannot serve {} on {} again: {}", server.name(), server.socket(), e.toString());
        }
      }
    }
  }

  /** Stops registration first, so the kubelet deregisters before the DRA socket goes. */
  @Override
  public void close() {
    DirectoryWatcher stopping;
    synchronized (this) {
      closed = true;
      stopping = watcher;
      watcher = null;
    }
    // Outside the lock: close joins the watcher's thread, which may be waiting for it in check.
    if (stopping != null) {
      stopping.close();
    }
    synchronized (this) {
      registration.close();
      dra.close();
    }
  }
}
