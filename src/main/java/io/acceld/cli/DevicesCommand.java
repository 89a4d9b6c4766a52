package io.acceld.cli;

import io.acceld.agent.NodeDiscovery;
import io.acceld.config.Settings;
import io.acceld.inventory.Inventory;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code acceld devices}: discover once and list the accelerators the agent would advertise. */
@Command(
    name = "devices",
    description = "List the accelerators this node would advertise.",
    mixinStandardHelpOptions = true)
final class DevicesCommand extends AgentCommand {
  @Option(names = "--json", description = "Print a JSON array, one object per device.")
  boolean json;

  DevicesCommand(CliContext context) {
    super(context);
  }

  @Override
  public Integer call() {
    try (Loaded loaded = load();
        NodeDiscovery discovery = NodeDiscovery.open(loaded.config())) {
      Inventory inventory = discovery.scan();
      Path devRoot = loaded.config().get(Settings.DEV_ROOT);
      context
          .out()
          .print(
              json
                  ? DeviceJson.render(inventory, devRoot) + "\n"
                  : DeviceTable.render(inventory, devRoot));
      context.out().flush();
      return 0;
    }
  }
}
