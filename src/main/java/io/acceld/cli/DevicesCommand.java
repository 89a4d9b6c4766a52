package io.acceld.cli;

import io.acceld.agent.DeviceListing;
import io.acceld.agent.NodeDiscovery;
import io.acceld.config.AgentConfig;
import io.acceld.config.Settings;
import io.acceld.inventory.DeviceJson;
import io.acceld.ledger.Availability;
import io.acceld.ledger.Lease;
import io.acceld.ledger.LeaseCheckpoint;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code acceld devices}: discover once and list the accelerators the agent would advertise, or,
 * with {@code --agent}, list what a running agent advertises now, with its live health.
 */
@Command(
    name = "devices",
    description = "List the accelerators this node would advertise.",
    mixinStandardHelpOptions = true)
final class DevicesCommand extends AgentCommand {
  @Option(names = "--json", description = "Print a JSON array, one object per device.")
  boolean json;

  @Option(
      names = "--agent",
      paramLabel = "URL",
      description =
          "Ask a running agent (its metrics address, such as http://127.0.0.1:9445) instead of"
              + " discovering: shows its live health, including XID and ECC marks.")
  URI agent;

  DevicesCommand(CliContext context) {
    super(context);
  }

  @Override
  public Integer call() throws Exception {
    List<Map<String, Object>> rows;
    if (agent != null) {
      rows = fromAgent(agent);
    } else {
      try (Loaded loaded = load();
          NodeDiscovery discovery = NodeDiscovery.open(loaded.config())) {
        AgentConfig config = loaded.config();
        rows =
            DeviceListing.rows(
                Availability.of(discovery.scan(), leases(config)),
                config::sharing,
                config.get(Settings.DEV_ROOT));
      }
    }
    String text = json ? DeviceJson.render(rows) + "\n" : DeviceTable.render(rows);
    context.out().print(text);
    context.out().flush();
    return 0;
  }

  /**
   * The leases of the last checkpoint, read without touching it: a running agent's live view is
   * {@code --agent}. Unreadable or absent means no leases shown, with a note on stderr.
   */
  private List<Lease> leases(AgentConfig config) {
    LeaseCheckpoint checkpoint = new LeaseCheckpoint(config.get(Settings.STATE_DIR));
    try {
      return checkpoint.read();
    } catch (LeaseCheckpoint.UnusableException e) {
      context.err().println("note: holders not shown: " + checkpoint.file() + " " + e.getMessage());
      return List.of();
    }
  }

  private List<Map<String, Object>> fromAgent(URI base) throws Exception {
    URI uri = base.resolve("/devices");
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpResponse<String> response;
    try {
      response =
          client.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new ParameterException(
          spec.commandLine(), "cannot reach the agent at " + uri + ": " + e);
    }
    if (response.statusCode() != 200) {
      throw new ParameterException(
          spec.commandLine(), "the agent at " + uri + " answered HTTP " + response.statusCode());
    }
    return DeviceJson.parse(response.body());
  }
}
