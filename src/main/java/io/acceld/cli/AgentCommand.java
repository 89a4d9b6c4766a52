package io.acceld.cli;

import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigException;
import io.acceld.config.ConfigLoader;
import io.acceld.config.EnvironmentCheck;
import io.acceld.config.MigLayout;
import io.acceld.config.MigStrategy;
import io.acceld.config.Setting;
import io.acceld.config.Settings;
import io.acceld.simulate.SimulatedNode;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What the commands that look at the node share: the config file, the settings and simulate mode.
 */
abstract class AgentCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(AgentCommand.class);

  @Spec CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "YAML config file. Env "
              + ConfigLoader.CONFIG_ENV
              + "; default /etc/acceld/config.yaml when it exists.")
  Path configFile;

  @Option(
      names = "--simulate",
      description =
          "Run on a built-in synthetic node (8 GPUs, two NUMA nodes, NVLink; more with"
              + " --simulate-gpus) with the NVML test double, instead of this machine's hardware.")
  boolean simulate;

  final CliContext context;

  AgentCommand(CliContext context) {
    this.context = context;
  }

  /**
   * Resolves flags, env and file; in simulate mode builds the synthetic node the roots point at.
   */
  final Loaded load() {
    AgentConfig config =
        ConfigLoader.load(
            SettingOptions.given(spec.commandLine().getParseResult()),
            context.env(),
            Optional.ofNullable(configFile));
    Logging.configure(config.get(Settings.LOG_LEVEL), config.get(Settings.LOG_FORMAT));
    // Once per process, after logging is set up so the warning takes the chosen format.
    EnvironmentCheck.warnings(context.env()).forEach(log::warn);
    if (!simulate) {
      return new Loaded(config, Optional.empty());
    }
    boolean nvmlChosen = config.sourceOf(Settings.NVML_LIBRARY) == AgentConfig.Source.FLAG;
    MigLayout mig = config.get(Settings.SIMULATE_MIG);
    SimulatedNode node;
    try {
      node =
          SimulatedNode.create(
              context.env(),
              config.get(Settings.SIMULATE_GPUS),
              mig,
              config.get(Settings.SIMULATE_DIR),
              !nvmlChosen);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    Map<Setting<?>, Object> simulated = new LinkedHashMap<>(node.settings());
    if (!mig.isEmpty() && config.sourceOf(Settings.MIG_STRATEGY) == AgentConfig.Source.DEFAULT) {
      // A new user asked to see MIG: show each profile as its own resource.
      simulated.put(Settings.MIG_STRATEGY, MigStrategy.MIXED);
    }
    return new Loaded(config.withSimulated(simulated), Optional.of(node));
  }

  /** A loaded configuration and, in simulate mode, the node it runs on (deleted on close). */
  record Loaded(AgentConfig config, Optional<SimulatedNode> simulated) implements AutoCloseable {
    @Override
    public void close() {
      simulated.ifPresent(SimulatedNode::close);
    }
  }
}
