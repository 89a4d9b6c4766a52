package io.acceld.agent;

import io.acceld.config.AgentConfig;
import io.acceld.config.Settings;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.InventoryStore;
import io.acceld.kubelet.KubeletPublisher;
import io.acceld.kubelet.PluginEvents;
import io.acceld.kubelet.PreferredAllocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The long-running agent: discovers the node, publishes snapshots to the {@link InventoryStore} and
 * rediscovers on an interval so hot-plugged devices appear and vanished ones go. Publishers
 * subscribe to the store.
 */
public final class Agent implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Agent.class);

  private final AgentConfig config;
  private final NodeDiscovery discovery;
  private final InventoryStore store = new InventoryStore();
  private final KubeletPublisher kubelet;
  private final ScheduledExecutorService discoveryThread =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "acceld-discovery");
            t.setDaemon(true);
            return t;
          });

  public Agent(AgentConfig config, NodeDiscovery discovery, PreferredAllocation preferred) {
    this.config = config;
    this.discovery = discovery;
    this.kubelet = new KubeletPublisher(config, preferred, PluginEvents.NONE, List.of());
  }

  public KubeletPublisher kubelet() {
    return kubelet;
  }

  public InventoryStore inventory() {
    return store;
  }

  /**
   * Discovers once, synchronously, starts the kubelet servers on that inventory, then keeps
   * rediscovering in the background.
   */
  public void start() {
    store.subscribe(Agent::logChange);
    rescan();
    try {
      kubelet.start(store);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot watch the kubelet's directories", e);
    }
    Duration interval = config.get(Settings.RESCAN_INTERVAL);
    if (!interval.isZero()) {
      discoveryThread.scheduleWithFixedDelay(
          this::rescan, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  void rescan() {
    try {
      store.publish(discovery.scan());
    } catch (RuntimeException e) {
      // A scan that fails keeps the last good snapshot; the next interval tries again.
      log.error("Device discovery failed; keeping the previous inventory", e);
    }
  }

  private static void logChange(Inventory inventory, InventoryDiff diff) {
    for (Device d : diff.added()) {
      log.info(
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
      log.warn("Device {} {} at {} is gone", d.resource(), d.id(), d.pciAddress());
    }
    for (InventoryDiff.Change c : diff.changed()) {
      log.info("Device {} {} changed: {}", c.after().resource(), c.after().id(), c.after());
    }
    log.info("Inventory: {} device(s) in {}", inventory.devices().size(), inventory.resources());
  }

  @Override
  public void close() {
    kubelet.close();
    discoveryThread.shutdownNow();
    try {
      discoveryThread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    discovery.close();
  }
}
