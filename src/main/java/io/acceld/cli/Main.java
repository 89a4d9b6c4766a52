package io.acceld.cli;

import io.acceld.agent.StartupFailure;
import io.acceld.config.ConfigException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code acceld} command. Exit codes: 0 success, 1 failure, 2 bad configuration or usage (with
 * a message naming what was wrong), and from {@link StartupFailure.Kind} the start failures an
 * operator can fix (3: {@code --fail-on-init-error} found the node wanting).
 */
@Command(
    name = "acceld",
    mixinStandardHelpOptions = true,
    versionProvider = VersionCommand.class,
    description = "Makes a node's accelerators schedulable by Kubernetes and Mesos.")
public final class Main implements Runnable {
  public static final int EXIT_CONFIG = 2;

  @Spec CommandSpec spec;

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    System.exit(execute(args, new CliContext(System.getenv(), out, err)));
  }

  /** Runs one command in-process and returns its exit code. */
  public static int execute(String[] args, CliContext context) {
    CommandLine cli = new CommandLine(new Main());
    cli.addSubcommand(withSettings(new DevicesCommand(context)));
    cli.addSubcommand(withSettings(new RunCommand(context)));
    cli.addSubcommand(new CommandLine(new VersionCommand(context)));
    cli.setOut(context.out());
    cli.setErr(context.err());
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          if (e instanceof ConfigException) {
            context.err().println("acceld: " + e.getMessage());
            context.err().flush();
            return EXIT_CONFIG;
          }
          if (e instanceof StartupFailure failure) {
            context.err().println("acceld: " + e.getMessage());
            context.err().flush();
            return failure.kind().exitCode();
          }
          throw e;
        });
    return cli.execute(args);
  }

  private static CommandLine withSettings(Object command) {
    CommandLine cli = new CommandLine(command);
    SettingOptions.addTo(cli.getCommandSpec());
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
