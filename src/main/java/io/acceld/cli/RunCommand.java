package io.acceld.cli;

import io.acceld.agent.Agent;
import io.acceld.agent.NodeDiscovery;
import io.acceld.agent.StopSignal;
import io.acceld.kubelet.TopologyAwareAllocation;
import picocli.CommandLine.Command;

/** {@code acceld run}: the long-running agent. Stops cleanly, exit 0, on SIGTERM or SIGINT. */
@Command(name = "run", description = "Run the agent.", mixinStandardHelpOptions = true)
final class RunCommand extends AgentCommand {
  RunCommand(CliContext context) {
    super(context);
  }

  @Override
  public Integer call() throws InterruptedException {
    StopSignal stop = StopSignal.install();
    try (Loaded loaded = load();
        Agent agent =
            new Agent(
                loaded.config(),
                NodeDiscovery.open(loaded.config(), true),
                new TopologyAwareAllocation())) {
      agent.start();
      stop.await();
    }
    return 0;
  }
}
