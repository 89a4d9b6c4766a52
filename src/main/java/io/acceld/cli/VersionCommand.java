package io.acceld.cli;

import io.acceld.util.BuildInfo;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code acceld version}. The version is stamped into a resource at build time ({@link BuildInfo}).
 */
@Command(name = "version", description = "Print the version.")
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
    context.out().println("acceld " + version());
    context.out().flush();
    return 0;
  }

  @Override
  public String[] getVersion() {
    return new String[] {"acceld " + version()};
  }

  static String version() {
    return BuildInfo.current().version();
  }
}
