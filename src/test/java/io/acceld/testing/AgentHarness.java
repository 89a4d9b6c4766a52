package io.acceld.testing;

import io.acceld.agent.Agent;
import io.acceld.agent.NodeDiscovery;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigLoader;
import io.acceld.simulate.FakeNodeTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A real agent on a fixture tree, configured through the same flags an operator uses. Tests start
 * it against a kubelet double whose directories it is given.
 */
public final class AgentHarness implements AutoCloseable {
  private final Agent agent;
  private final AgentConfig config;

  private AgentHarness(AgentConfig config) {
    this.config = config;
    this.agent = new Agent(config, NodeDiscovery.open(config, true), new TopologyAwareChooser());
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
    agent.close();
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
      AgentHarness harness = new AgentHarness(ConfigLoader.load(flags, Map.of(), file));
      harness.agent.start();
      return harness;
    }
  }
}
