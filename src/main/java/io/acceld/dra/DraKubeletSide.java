package io.acceld.dra;

import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.InventoryStore;
import io.acceld.ledger.DeviceLedger;
import io.acceld.transport.UnixGrpc;
import io.acceld.util.NamedThreads;
import io.grpc.BindableService;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet side of DRA, started and stopped as one: registration through plugin-watcher, the DRA
 * API (v1, v1beta1) and health (v1alpha1) on the DRA socket, prepare and unprepare over the ledger,
 * the claims' CDI specs, and its metrics.
 *
 * <p>Start it after the ledger is restored from its checkpoint and subscribed to the inventory
 * store, before or after the first discovery: the CDI specs of claims restored from the checkpoint
 * are written as soon as their devices are in the inventory. Close it before the ledger.
 */
public final class DraKubeletSide implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DraKubeletSide.class);

  private final InventoryStore inventory;
  private final ExecutorService calls;
  private final ExecutorService restorer;
  private final AtomicBoolean restorePending = new AtomicBoolean();
  private final ClaimPreparer preparer;
  private final DraHealthService health;
  private final DraSockets sockets;
  private final InventoryStore.Listener listener = this::inventoryChanged;

  private DraKubeletSide(
      DraSettings settings,
      DeviceLedger ledger,
      InventoryStore inventory,
      ClaimSource claims,
      MeterRegistry registry,
      Clock clock,
      UnixGrpc grpc) {
    this.inventory = inventory;
    this.calls = Executors.newFixedThreadPool(2, new NamedThreads("acceld-dra-call"));
    this.restorer = Executors.newSingleThreadExecutor(new NamedThreads("acceld-dra-restore"));
    this.preparer = new ClaimPreparer(settings, ledger, claims);
    DraMetrics metrics = new DraMetrics(ledger);
    metrics.bindTo(registry);
    DraCalls draCalls = new DraCalls(preparer, metrics);
    this.health =
        new DraHealthService(settings, inventory::current, clock, settings.healthPeriod());
    List<BindableService> services =
        List.of(new DraV1Service(draCalls), new DraV1beta1Service(draCalls), health);
    this.sockets = new DraSockets(settings, services, grpc, calls);
  }

  /**
   * Starts serving.
   *
   * @param settings the driver, the node, the directories ({@link DraSettings#of})
   * @param ledger the agent's one ledger, restored from its checkpoint (prepared claims are leases
   *     of {@link io.acceld.ledger.Holder.DraClaim} in it)
   * @param inventory the store the ledger follows; health and restored specs follow it too
   * @param claims where prepare reads ResourceClaims (the API server)
   * @param registry where the DRA series go
   * @param clock the health reports' timestamps
   * @param grpc the event loop the sockets are served on: the agent's one, shared with the device
   *     plugin's sockets (a loop of its own cost a thread and a wake-up a second); borrowed, not
   *     closed here, so close this side before it
   * @throws IOException if a socket cannot be served (another agent holds its lock, a path too
   *     long); nothing is left running then
   */
  public static DraKubeletSide start(
      DraSettings settings,
      DeviceLedger ledger,
      InventoryStore inventory,
      ClaimSource claims,
      MeterRegistry registry,
      Clock clock,
      UnixGrpc grpc)
      throws IOException {
    Objects.requireNonNull(settings, "settings");
    settings.checkSocketPaths();
    DraKubeletSide side =
        new DraKubeletSide(
            settings,
            Objects.requireNonNull(ledger, "ledger"),
            Objects.requireNonNull(inventory, "inventory"),
            Objects.requireNonNull(claims, "claims"),
            Objects.requireNonNull(registry, "registry"),
            Objects.requireNonNull(clock, "clock"),
            Objects.requireNonNull(grpc, "grpc"));
    try {
      // Sockets first: taking their locks is what proves no other agent runs this driver, and
      // the sweep below must not remove another agent's specs.
      side.sockets.start();
      side.preparer.restoreSpecs(true);
      inventory.subscribe(side.listener);
    } catch (IOException | RuntimeException e) {
      side.close();
      throw e;
    }
    log.info(
        "DRA driver {} serving on {} (registration {})",
        settings.driver(),
        settings.draSocket(),
        settings.registrationSocket());
    return side;
  }

  private void inventoryChanged(Inventory next, InventoryDiff diff) {
    health.inventoryChanged();
    if (!restorePending.getAndSet(true)) {
      try {
        restorer.execute(
            () -> {
              restorePending.set(false);
              preparer.restoreSpecs(false);
            });
      } catch (RejectedExecutionException e) {
        // closed
      }
    }
  }

  /** Whether the kubelet's last registration status said it took the plugin. */
  public boolean registered() {
    return sockets.registered();
  }

  public Path draSocket() {
    return sockets.draSocket();
  }

  public Path registrationSocket() {
    return sockets.registrationSocket();
  }

  /** Open health streams; for tests. */
  int healthWatchers() {
    return health.watcherCount();
  }

  /**
   * Stops serving. Prepared claims stay prepared: their leases are in the ledger's checkpoint and
   * their CDI specs stay on disk, for the containers that use them and for the next start.
   */
  @Override
  public void close() {
    inventory.unsubscribe(listener);
    sockets.close();
    health.close();
    restorer.shutdownNow();
    calls.shutdown();
    try {
      if (!calls.awaitTermination(5, TimeUnit.SECONDS)) {
        calls.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      calls.shutdownNow();
    }
  }
}
