package io.acceld.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/** {@code acceld version}. The version is stamped into a resource at build time. */
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
    Properties p = new Properties();
    try (InputStream in = VersionCommand.class.getResourceAsStream("/acceld-version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // fall through to "unknown"
    }
    return p.getProperty("version", "unknown");
  }
}
