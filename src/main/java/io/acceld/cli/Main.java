package io.acceld.cli;

import io.acceld.config.ConfigException;
import io.acceld.config.Setting;
import io.acceld.config.Settings;
import io.acceld.util.OperatorError;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code acceld} command. Exit codes: 0 success, 1 failure, 2 bad configuration or usage (with
 * a message naming what was wrong), and from {@link OperatorError.Kind} the failures an operator
 * can fix: 3 {@code --fail-on-init-error} found the node wanting, 4 {@code --metrics-address}
 * cannot be listened on, 5 {@code devices --agent} reached no agent. Each prints one line; stack
 * traces only at {@code --log-level debug}.
 */
// addMethodSubcommands = false here and on every command: acceld has no @Command methods, and
// picocli otherwise reflects over each command class's methods for them on every start.
@Command(
    addMethodSubcommands = false,
    name = "acceld",
    mixinStandardHelpOptions = true,
    versionProvider = VersionCommand.class,
    description = "Makes a node's accelerators schedulable by Kubernetes and Mesos.")
public final class Main implements Runnable {
  public static final int EXIT_CONFIG = 2;

  /**
   * picocli's list of built-in converters it should not register. No option of ours has a {@code
   * java.time} or {@code java.sql} type (durations are strings the settings parse), and picocli
   * registers those by loading and initialising each class: ~50 classes of {@code java.time}, its
   * formatters among them, in every node's class-data archive and RSS (~0.4 MiB).
   */
  static final String UNUSED_CONVERTERS = "java\\.time\\..*,java\\.sql\\..*";

  /** JNA's platform library path, which the agent sets unless the operator did (see below). */
  static final String JNA_PLATFORM_PATH = "jna.platform.library.path";

  static {
    if (System.getProperty("picocli.converters.excludes") == null) {
      System.setProperty("picocli.converters.excludes", UNUSED_CONVERTERS);
    }
    // JNA's search path beyond what dlopen(3) searches itself. Unset, JNA fills it on its first
    // load by running /sbin/ldconfig -p: a child process on every start (and Process, its reaper
    // and the fork-join pool loaded for it), for directories that are the dynamic linker's cache,
    // which dlopen, tried first, already searches. An operator's -D setting still wins.
    if (System.getProperty(JNA_PLATFORM_PATH) == null) {
      System.setProperty(JNA_PLATFORM_PATH, "");
    }
    // Before the first logger, below: SLF4J reads both once, when it initialises. The provider
    // named this way is announced on stderr at SLF4J's INFO; its warnings and errors still print.
    if (System.getProperty(AgentLogProvider.PROVIDER_PROPERTY) == null) {
      System.setProperty(AgentLogProvider.PROVIDER_PROPERTY, AgentLogProvider.class.getName());
      if (System.getProperty(AgentLogProvider.VERBOSITY_PROPERTY) == null) {
        System.setProperty(AgentLogProvider.VERBOSITY_PROPERTY, "WARN");
      }
    }
  }

  private static final Logger log = LoggerFactory.getLogger(Main.class);

  @Spec CommandSpec spec;

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    System.exit(execute(args, new CliContext(System.getenv(), out, err)));
  }

  /** Runs one command in-process and returns its exit code. */
  public static int execute(String[] args, CliContext context) {
    CommandLine cli = new CommandLine(new Main());
    String invoked = args.length > 0 ? args[0] : "";
    // Commands in the order help lists them. A running command is built alone: the others' models
    // (picocli reflects over each one's options) are for help, completion and mistyped commands,
    // and cost an agent's every start ~15 ms on a 2-core node.
    Map<String, Supplier<CommandLine>> commands = new LinkedHashMap<>();
    commands.put(
        "devices",
        () ->
            withSettings(
                new DevicesCommand(context),
                settingsFor("devices", invoked, DevicesCommand.SETTINGS)));
    commands.put("run", () -> withSettings(new RunCommand(context), settingsFor("run", invoked)));
    commands.put(
        "doctor", () -> withSettings(new DoctorCommand(context), settingsFor("doctor", invoked)));
    commands.put("kubelet-probe", () -> new CommandLine(new KubeletProbeCommand(context)));
    commands.put("version", () -> new CommandLine(new VersionCommand(context)));
    commands.put("completion", () -> new CommandLine(new CompletionCommand(context)));
    commands.put("help", () -> new CommandLine(new HelpCommand()));
    commands.forEach(
        (name, command) -> {
          if (!RUNNING.contains(invoked) || name.equals(invoked)) {
            cli.addSubcommand(name, command.get());
          }
        });
    cli.setOut(context.out());
    cli.setErr(context.err());
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          if (e instanceof ConfigException) {
            return fail(context, e.getMessage(), e, EXIT_CONFIG);
          }
          if (e instanceof OperatorError error) {
            return fail(context, e.getMessage(), e, error.kind().exitCode());
          }
          // A bug or a failure nobody foresaw: still one line, the trace only for whoever asks.
          return fail(
              context, e + " (--log-level debug shows where)", e, CommandLine.ExitCode.SOFTWARE);
        });
    return cli.execute(args);
  }

  /**
   * Prints {@code message} as the one line an operator reads; the stack trace goes to the debug
   * log, where it helps a developer without burying the message.
   */
  private static int fail(CliContext context, String message, Exception e, int exitCode) {
    context.err().println("acceld: " + message);
    context.err().flush();
    log.debug("acceld failed", e);
    return exitCode;
  }

  /** The subcommands that run something; any other first argument may show any command's help. */
  private static final java.util.Set<String> RUNNING =
      java.util.Set.of("run", "devices", "doctor", "kubelet-probe", "version");

  private static List<Setting<?>> settingsFor(String command, String invoked) {
    return settingsFor(command, invoked, Settings.ALL);
  }

  /**
   * A command's setting options, built only where they can be parsed or shown: for the command
   * being run, and for every command when the first argument is no running command ({@code help
   * run}, {@code completion bash}, a typo). An agent's start ({@code run}) then builds its ~60
   * options once instead of once for each of the three commands that take them.
   */
  private static List<Setting<?>> settingsFor(
      String command, String invoked, List<Setting<?>> settings) {
    return command.equals(invoked) || !RUNNING.contains(invoked) ? settings : List.of();
  }

  private static CommandLine withSettings(Object command, List<Setting<?>> settings) {
    CommandLine cli = new CommandLine(command);
    SettingOptions.addTo(cli.getCommandSpec(), settings);
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
