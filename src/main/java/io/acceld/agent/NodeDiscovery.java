package io.acceld.agent;

import io.acceld.config.AgentConfig;
import io.acceld.config.Settings;
import io.acceld.discovery.DeviceClassifier;
import io.acceld.discovery.InventoryScanner;
import io.acceld.discovery.NvidiaSource;
import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlLoader;
import io.acceld.nvml.NvmlProbe;
import java.util.List;
import java.util.Optional;

/**
 * The discovery half of the agent, built from configuration: NVML (if it loads) and the inventory
 * scanner over the configured roots. Owns the NVML session and shuts it down on close.
 */
public final class NodeDiscovery implements AutoCloseable {
  private final Optional<Nvml> nvml;
  private final InventoryScanner scanner;

  private NodeDiscovery(Optional<Nvml> nvml, InventoryScanner scanner) {
    this.nvml = nvml;
    this.scanner = scanner;
  }

  /** For one-shot listings: NVML is probed on every scan. */
  public static NodeDiscovery open(AgentConfig config) {
    return open(config, false);
  }

  /**
   * @param longRunning cache NVML's static facts between scans (the agent rescans often and must
   *     keep NVML calls low); lost GPUs are then the health monitor's to report
   */
  public static NodeDiscovery open(AgentConfig config, boolean longRunning) {
    Optional<Nvml> nvml = NvmlLoader.load(config.get(Settings.NVML_LIBRARY));
    InventoryScanner scanner =
        new InventoryScanner(
            config.get(Settings.SYSFS_ROOT),
            config.get(Settings.DEV_ROOT),
            config.get(Settings.PROC_ROOT),
            new DeviceClassifier(config.rules()),
            nvml.map(NvmlProbe::new)
                .map(p -> longRunning ? NvidiaSource.cached(p) : NvidiaSource.fresh(p))
                .orElse(NvidiaSource.NONE),
            config.get(Settings.MIG_STRATEGY));
    return new NodeDiscovery(nvml, scanner);
  }

  public Inventory scan() {
    return scanner.scan();
  }

  /** What {@code /healthz} reports as degraded: sysfs reads that blocked and have not returned. */
  public List<String> degraded() {
    return scanner.blockedReads();
  }

  public Optional<Nvml> nvml() {
    return nvml;
  }

  @Override
  public void close() {
    nvml.ifPresent(Nvml::close);
  }
}
