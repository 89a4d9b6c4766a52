package io.acceld.cli;

import io.acceld.agent.AgentDaemon;
import io.acceld.agent.StopSignal;
import picocli.CommandLine.Command;

/** {@code acceld run}: the long-running agent. Stops cleanly, exit 0, on SIGTERM or SIGINT. */
@Command(
    name = "run",
    description = "Run the agent.",
    mixinStandardHelpOptions = true,
    addMethodSubcommands = false)
final class RunCommand extends AgentCommand {
  RunCommand(CliContext context) {
    super(context);
  }

  @Override
  public Integer call() throws Exception {
    StopSignal stop = StopSignal.install();
    try (Loaded loaded = load();
        AgentDaemon daemon = AgentDaemon.start(loaded.config())) {
      stop.await();
    }
    return 0;
  }
}
