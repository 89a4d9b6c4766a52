package io.acceld.cli;

import io.acceld.agent.DeviceListing;
import io.acceld.agent.NodeDiscovery;
import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigException;
import io.acceld.config.Setting;
import io.acceld.config.Settings;
import io.acceld.inventory.DeviceJson;
import io.acceld.ledger.Availability;
import io.acceld.ledger.Lease;
import io.acceld.ledger.LeaseCheckpoint;
import io.acceld.metrics.AgentEndpointClient;
import io.acceld.util.OperatorError;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code acceld devices}: discover once and list the accelerators the agent would advertise, or,
 * with {@code --agent}, list what a running agent advertises now, with its live health.
 */
@Command(
    addMethodSubcommands = false,
    name = "devices",
    description = "List the accelerators this node would advertise.",
    mixinStandardHelpOptions = true)
final class DevicesCommand extends AgentCommand {
  /**
   * The settings a local listing reads (where the node's files are, NVML, the last checkpoint's
   * holders, logging), and the two {@code --agent} reads to reach an agent that requires a token or
   * serves HTTPS (the same values the agent runs with, so the node's env or config file sets them).
   */
  static final List<Setting<?>> SETTINGS =
      List.of(
          Settings.SYSFS_ROOT,
          Settings.DEV_ROOT,
          Settings.PROC_ROOT,
          Settings.NVML_LIBRARY,
          Settings.MIG_STRATEGY,
          Settings.STATE_DIR,
          Settings.LOG_LEVEL,
          Settings.LOG_FORMAT,
          Settings.SIMULATE_GPUS,
          Settings.SIMULATE_MIG,
          Settings.SIMULATE_DIR,
          Settings.METRICS_AUTH,
          Settings.METRICS_TLS_CERT);

  @Option(names = "--json", description = "Print a JSON array, one object per device.")
  boolean json;

  @Option(
      names = "--agent",
      paramLabel = "URL",
      description =
          "Ask a running agent (its metrics address, such as http://127.0.0.1:9445) instead of"
              + " discovering: shows its live health, including XID and ECC marks. Sends the"
              + " token of --metrics-auth and trusts the certificate of --metrics-tls-cert; the"
              + " node settings are then not used.")
  String agent;

  DevicesCommand(CliContext context) {
    super(context);
  }

  @Override
  public Integer call() throws Exception {
    List<Map<String, Object>> rows;
    if (agent != null) {
      URI url = agentUrl(agent);
      try (Loaded loaded = load()) {
        AgentConfig config = loaded.config();
        rows =
            fromAgent(
                url,
                clientFor(
                    config.get(Settings.METRICS_AUTH), config.get(Settings.METRICS_TLS_CERT)));
      }
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

  /**
   * The {@code --agent} value as an HTTP URL. Parsed here rather than by picocli so that a value
   * without a scheme ({@code 127.0.0.1:9445}, the form {@code --metrics-address} takes) gets a line
   * saying what to write instead of a parser's complaint and the whole usage text.
   */
  static URI agentUrl(String raw) {
    String fix =
        "; give the agent's metrics address as an http:// URL, such as http://127.0.0.1:9445";
    URI uri;
    try {
      uri = new URI(raw.strip());
    } catch (URISyntaxException e) {
      throw new ConfigException("--agent '" + raw + "' is not a URL" + fix);
    }
    String scheme = uri.getScheme();
    if (scheme == null
        || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
        || uri.getHost() == null) {
      throw new ConfigException("--agent '" + raw + "' has no http:// or https:// scheme" + fix);
    }
    return uri;
  }

  private static AgentEndpointClient clientFor(String auth, String certificate) {
    try {
      return AgentEndpointClient.fromSettings(auth, certificate);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  private List<Map<String, Object>> fromAgent(URI base, AgentEndpointClient client)
      throws Exception {
    URI uri = base.resolve("/devices");
    HttpResponse<String> response;
    try {
      response =
          client
              .http()
              .send(client.get(uri, Duration.ofSeconds(10)), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new OperatorError(
          OperatorError.Kind.AGENT_UNREACHABLE,
          "cannot reach the agent at "
              + uri
              + ": "
              + e
              + "; is 'acceld run' up there? --agent takes its --metrics-address",
          e);
    }
    if (response.statusCode() == 401) {
      throw new OperatorError(
          OperatorError.Kind.AGENT_UNREACHABLE,
          "the agent at "
              + uri
              + (client.sendsToken()
                  ? " refused the token of --metrics-auth; is it the file the agent reads?"
                  : " requires a token; set --metrics-auth bearer:FILE (or ACCELD_METRICS_AUTH)"
                      + " as the agent has it"));
    }
    if (response.statusCode() != 200) {
      throw new OperatorError(
          OperatorError.Kind.AGENT_UNREACHABLE,
          "the agent at "
              + uri
              + " answered HTTP "
              + response.statusCode()
              + "; is --agent the URL of an acceld's --metrics-address?");
    }
    return DeviceJson.parse(response.body());
  }
}
