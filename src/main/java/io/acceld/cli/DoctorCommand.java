package io.acceld.cli;

import io.acceld.config.ConfigException;
import io.acceld.config.Parsers;
import io.acceld.doctor.Doctor;
import io.acceld.doctor.Report;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code acceld doctor}: checks the node as {@code acceld run} with the same settings would meet it
 * and prints one line per check with what it found and, for each failure, the fix. Exit 0 when
 * nothing failed, 1 when something did, 2 for bad usage or configuration. It only reads: it never
 * registers, writes a spec, creates a directory or takes a lock.
 */
@Command(
    addMethodSubcommands = false,
    name = "doctor",
    description = {
      "Check this node as 'acceld run' with the same settings would meet it: NVML, each GPU's"
          + " health and device nodes, other accelerators, the kubelet's sockets, CDI, the state"
          + " directory and its lock, the Mesos address and, with --agent, a running agent. One"
          + " line per check (✓ pass, ✗ fail with its fix, – skipped). Reads only.",
      "Exit 0 when nothing failed, 1 when something did. docs/doctor.md lists every check and the"
          + " --json document."
    },
    mixinStandardHelpOptions = true)
final class DoctorCommand extends AgentCommand {
  @Option(
      names = "--json",
      description = "Print one JSON document (format 1, see docs/doctor.md) instead of lines.")
  boolean json;

  @Option(
      names = "--agent",
      paramLabel = "URL",
      description =
          "Also check a running agent at its metrics address, such as http://127.0.0.1:9445:"
              + " alive, ready, and what it advertises against what the hardware shows. Sends the"
              + " token of --metrics-auth and trusts the certificate of --metrics-tls-cert.")
  String agent;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      description =
          "How long each group of checks may take before it is reported as hanging (a wedged"
              + " driver, a peer that never answers); default ${DEFAULT-VALUE}.",
      defaultValue = "10s")
  String timeout;

  DoctorCommand(CliContext context) {
    super(context);
  }

  @Override
  public Integer call() {
    Duration limit = limit(timeout);
    Optional<URI> url = Optional.ofNullable(agent).map(DevicesCommand::agentUrl);
    Report report;
    try (Loaded loaded = load()) {
      report = Doctor.examine(loaded.config(), url, limit);
    }
    context.out().print(json ? report.json() : report.text());
    context.out().flush();
    return report.ok() ? 0 : 1;
  }

  private static Duration limit(String raw) {
    Duration limit;
    try {
      limit = Parsers.duration().parse(raw);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("--timeout " + e.getMessage());
    }
    if (limit.isZero() || limit.isNegative()) {
      throw new ConfigException("--timeout must be longer than 0, got '" + raw + "'");
    }
    return limit;
  }
}
