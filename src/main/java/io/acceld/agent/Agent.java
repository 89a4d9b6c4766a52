package io.acceld.agent;

import io.acceld.config.AgentConfig;
import io.acceld.config.Settings;
import io.acceld.health.HealthEvents;
import io.acceld.health.HealthListener;
import io.acceld.health.HealthMarks;
import io.acceld.health.HealthMonitor;
import io.acceld.health.HealthOverlay;
import io.acceld.health.XidPolicy;
import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.InventoryStore;
import io.acceld.util.LoopWatchdog;
import io.acceld.util.NamedThreads;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The pipeline: discovery → inventory → health → ledger. Discovery produces snapshots of what is
 * present; health monitoring, which follows discovery's raw snapshots, records what went wrong
 * since; the agent publishes the two combined to the {@link InventoryStore}, which the {@link
 * io.acceld.ledger.DeviceLedger} follows. Publishers (the kubelet side, metrics, the Mesos bridge)
 * are not the pipeline's business: they are composed around it ({@link AgentDaemon}) and read the
 * ledger. Discovery runs on an interval and whenever the presence monitor sees devices or device
 * nodes come and go.
 */
public final class Agent implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Agent.class);

  private final AgentConfig config;
  private final NodeDiscovery discovery;
  private final InventoryStore store;
  private final HealthMarks marks;
  private final HealthMonitor health;
  private final Object publishLock = new Object();
  private volatile Inventory discovered = Inventory.EMPTY;
  private final LoopWatchdog discoveryWatchdog = new LoopWatchdog("Device discovery");
  private final ScheduledExecutorService discoveryThread =
      Executors.newSingleThreadScheduledExecutor(new NamedThreads("acceld-discovery"));

  /**
   * @param store where the pipeline publishes; created by the caller, so that what follows it (the
   *     ledger, telemetry, metrics) can exist before the agent
   * @param events what health sees that is worth counting (metrics)
   */
  public Agent(
      AgentConfig config,
      NodeDiscovery discovery,
      InventoryStore store,
      HealthEvents events,
      Clock clock) {
    this.config = config;
    this.discovery = discovery;
    this.store = store;
    this.marks = new HealthMarks(clock, config.get(Settings.HEALTH_QUARANTINE));
    HealthListener listener =
        new HealthListener() {
          @Override
          public void changed() {
            republish();
          }

          @Override
          public void xid(Device device, int xid, boolean ignored) {
            events.xid(device, xid, ignored);
          }

          @Override
          public void singleBitEcc(Device device) {
            events.singleBitEcc(device);
          }
        };
    this.health =
        new HealthMonitor(
            discovery.nvml(),
            () -> discovered, // discovery's own snapshot: health must not read its own marks
            marks,
            listener,
            this::rediscoverSoon,
            clock,
            new HealthMonitor.Settings(
                XidPolicy.of(
                    config.get(Settings.XID_IGNORE_ADD), config.get(Settings.XID_IGNORE_REMOVE)),
                config.get(Settings.HEALTH_PROBE_INTERVAL),
                config.get(Settings.SYSFS_ROOT),
                config.get(Settings.DEV_ROOT),
                config.get(Settings.PRESENCE_POLL_INTERVAL)));
  }

  public InventoryStore inventory() {
    return store;
  }

  /**
   * Why the pipeline's loops count as stuck rather than alive: a discovery scan, health probe or
   * NVML event watch that has run longer than {@code --loop-stuck-after}. {@code /healthz} fails
   * with these reasons.
   */
  public List<String> stuckLoops() {
    Duration limit = config.get(Settings.LOOP_STUCK_AFTER);
    List<String> stuck = new ArrayList<>();
    discoveryWatchdog.stuck(limit).ifPresent(stuck::add);
    stuck.addAll(health.stuckLoops(limit));
    return stuck;
  }

  /** True while the agent's loops run: discovery and health. */
  public boolean alive() {
    return !discoveryThread.isShutdown() && health.alive();
  }

  /**
   * Discovers once, synchronously (so the store holds the node before any publisher starts), then
   * starts the health monitor and background rediscovery.
   */
  public void start() {
    store.subscribe(Agent::logChange);
    rescan();
    health.start();
    Duration interval = config.get(Settings.RESCAN_INTERVAL);
    if (!interval.isZero()) {
      discoveryThread.scheduleWithFixedDelay(
          this::rescan, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void rediscoverSoon() {
    if (!discoveryThread.isShutdown()) {
      discoveryThread.execute(this::rescan);
    }
  }

  void rescan() {
    discoveryWatchdog.turnBegins();
    try {
      discovered = discovery.scan();
      republish();
    } catch (RuntimeException e) {
      // A scan that fails keeps the last good snapshot; the next one tries again.
      log.error("Device discovery failed; keeping the previous inventory", e);
    } finally {
      discoveryWatchdog.turnEnds();
    }
  }

  /** Publishes what discovery found, with the health marks applied. */
  private void republish() {
    synchronized (publishLock) {
      store.publish(HealthOverlay.apply(discovered, marks.active()));
    }
  }

  /**
   * One line per device event, carrying {@code device}, {@code resource} and (for health) {@code
   * reason} as structured fields for {@code --log-format json}. A fault (a device gone or
   * unhealthy) is WARN; a recovery, like a device appearing, INFO, so an alert on WARN lines fires
   * on trouble only.
   */
  private static void logChange(Inventory inventory, InventoryDiff diff) {
    for (Device d : diff.added()) {
      fields(log.atInfo(), d)
          .log(
              "Device {} {} {} at {} NUMA {}: {}{}",
              d.resource(),
              d.id(),
              d.model(),
              d.pciAddress(),
              d.numaNode(),
              d.health().wireValue(),
              d.healthReason().map(r -> " (" + r + ")").orElse(""));
    }
    for (Device d : diff.removed()) {
      fields(log.atWarn(), d)
          .log("Device {} {} at {} is gone", d.resource(), d.id(), d.pciAddress());
    }
    for (InventoryDiff.Change c : diff.changed()) {
      Device after = c.after();
      if (c.before().health() != after.health()
          || !c.before().healthReason().equals(after.healthReason())) {
        boolean fault = after.health() != Health.HEALTHY;
        fields(fault ? log.atWarn() : log.atInfo(), after)
            .log(
                "Device {} {} at {} is now {}{}",
                after.resource(),
                after.id(),
                after.pciAddress(),
                after.health().wireValue(),
                after.healthReason().map(r -> ": " + r).orElse(""));
      } else {
        fields(log.atInfo(), after).log("Device {} {} changed", after.resource(), after.id());
      }
    }
    if (!diff.added().isEmpty() || !diff.removed().isEmpty()) {
      log.info("Inventory: {} device(s) in {}", inventory.devices().size(), inventory.resources());
    }
  }

  private static LoggingEventBuilder fields(LoggingEventBuilder event, Device d) {
    event.addKeyValue("device", d.id()).addKeyValue("resource", d.resource());
    d.healthReason().ifPresent(r -> event.addKeyValue("reason", r));
    return event;
  }

  @Override
  public void close() {
    health.close();
    discoveryThread.shutdownNow();
    try {
      discoveryThread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    discovery.close();
  }
}
