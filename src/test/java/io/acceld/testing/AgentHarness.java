package io.acceld.testing;

import io.acceld.agent.Agent;
import io.acceld.agent.NodeDiscovery;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigLoader;
import io.acceld.config.Settings;
import io.acceld.health.HealthEvents;
import io.acceld.inventory.InventoryStore;
import io.acceld.kubelet.KubeletPublisher;
import io.acceld.kubelet.PluginEvents;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.LedgerStorage;
import io.acceld.simulate.FakeNodeTree;
import io.acceld.transport.UnixGrpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real agent on a fixture tree, configured through the same flags an operator uses: the pipeline,
 * the device ledger (checkpointed under the scratch directory) and the kubelet side, composed as
 * {@code AgentDaemon} composes them but without metrics and HTTP. Tests start it against a kubelet
 * double whose directories it is given.
 */
public final class AgentHarness implements AutoCloseable {
  private final Agent agent;
  private final AgentConfig config;
  private final LedgerStorage storage;
  private final KubeletPublisher kubelet;
  private final UnixGrpc grpc = new UnixGrpc("harness-grpc", 2);

  private AgentHarness(AgentConfig config) {
    this.config = config;
    Clock clock = Clock.systemUTC();
    this.storage = LedgerStorage.open(config.get(Settings.STATE_DIR), clock);
    InventoryStore store = new InventoryStore();
    store.subscribe(storage.ledger());
    this.agent =
        new Agent(config, NodeDiscovery.open(config, true), store, HealthEvents.NONE, clock);
    this.kubelet =
        new KubeletPublisher(
            config,
            new TopologyAwareChooser(),
            PluginEvents.NONE,
            List.of(),
            storage.ledger(),
            grpc);
  }

  public KubeletPublisher kubelet() {
    return kubelet;
  }

  public DeviceLedger ledger() {
    return storage.ledger();
  }

  public static Builder on(FakeNodeTree tree) {
    return new Builder(tree);
  }

  public Agent agent() {
    return agent;
  }

  public AgentConfig config() {
    return config;
  }

  @Override
  public void close() {
    kubelet.close();
    grpc.close();
    agent.close();
    storage.close();
  }

  /** Flags by key (without the dashes), plus an optional YAML file. */
  public static final class Builder {
    private final Map<String, String> flags = new HashMap<>();
    private String yaml;

    private Builder(FakeNodeTree tree) {
      flags.put("sysfs-root", tree.sysfsRoot().toString());
      flags.put("dev-root", tree.devRoot().toString());
      flags.put("proc-root", tree.procRoot().toString());
      flags.put("nvml-library", "none");
      flags.put("rescan-interval", "0");
    }

    public Builder flag(String key, String value) {
      flags.put(key, value);
      return this;
    }

    public Builder yaml(String text) {
      this.yaml = text;
      return this;
    }

    /** Builds and starts the agent. */
    public AgentHarness start(Path scratch) throws IOException {
      Optional<Path> file = Optional.empty();
      if (yaml != null) {
        Files.createDirectories(scratch);
        Path f = scratch.resolve("acceld.yaml");
        Files.writeString(f, yaml);
        file = Optional.of(f);
      }
      Map<String, String> all = new HashMap<>(flags);
      all.putIfAbsent("state-dir", scratch.resolve("state").toString());
      AgentHarness harness = new AgentHarness(ConfigLoader.load(all, Map.of(), file));
      try {
        harness.agent.start();
        harness.kubelet.start();
      } catch (IOException | RuntimeException e) {
        harness.close();
        throw e;
      }
      return harness;
    }
  }
}
