package io.acceld.agent;

import io.acceld.config.AgentConfig;
import io.acceld.config.Settings;
import io.acceld.discovery.DeviceClassifier;
import io.acceld.discovery.InventoryScanner;
import io.acceld.discovery.nvml.Nvml;
import io.acceld.discovery.nvml.NvmlLoader;
import io.acceld.discovery.nvml.NvmlProbe;
import io.acceld.inventory.Inventory;
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

  public static NodeDiscovery open(AgentConfig config) {
    Optional<Nvml> nvml = NvmlLoader.load(config.get(Settings.NVML_LIBRARY));
    InventoryScanner scanner =
        new InventoryScanner(
            config.get(Settings.SYSFS_ROOT),
            config.get(Settings.DEV_ROOT),
            config.get(Settings.PROC_ROOT),
            new DeviceClassifier(config.rules()),
            nvml.map(NvmlProbe::new));
    return new NodeDiscovery(nvml, scanner);
  }

  public Inventory scan() {
    return scanner.scan();
  }

  public Optional<Nvml> nvml() {
    return nvml;
  }

  @Override
  public void close() {
    nvml.ifPresent(Nvml::close);
  }
}
