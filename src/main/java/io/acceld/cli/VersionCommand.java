package io.acceld.cli;

import io.acceld.util.BuildInfo;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code acceld version} and {@code acceld --version}: the version, the git revision and the build
 * date stamped into the jar ({@link BuildInfo}), and the Java running it, so a bug report or a look
 * at a node says exactly which build is there.
 */
@Command(
    addMethodSubcommands = false,
    name = "version",
    description = "Print the version, git revision, build date and Java runtime.",
    mixinStandardHelpOptions = true)
final class VersionCommand implements Callable<Integer>, IVersionProvider {
  private final CliContext context;

  VersionCommand(CliContext context) {
    this.context = context;
  }

  VersionCommand() {
    this(null);
  }

  @Override
  public Integer call() {
    BuildInfo.current().describe().forEach(context.out()::println);
    context.out().flush();
    return 0;
  }

  @Override
  public String[] getVersion() {
    return BuildInfo.current().describe().toArray(String[]::new);
  }
}
