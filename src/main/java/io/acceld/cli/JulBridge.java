package io.acceld.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.jul.JULHelper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.logging.LogManager;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Routes java.util.logging (grpc's, and the JDK HTTP server's through {@code System.Logger}) into
 * logback, set up when something first logs through JUL rather than on the start's critical path.
 *
 * <p>Why: initialising JUL's {@code LogManager}, installing the SLF4J bridge and pushing logback's
 * levels onto JUL's loggers cost 20–30 ms of the main thread before picocli had even parsed the
 * command line. The first JUL user is grpc, on the transport warm-up thread, so the work now runs
 * there, beside NVML's load and the first scan.
 *
 * <p>How: {@link LogbackDefaults} names this class in {@code java.util.logging.config.class}. When
 * JUL initialises, its {@code LogManager} makes one instance, and the constructor hands it the
 * configuration, as that property's contract asks: the SLF4J bridge as the only handler, and each
 * logger level logback has set (root, {@code io.grpc.netty.shaded} at WARN and the rest) as JUL's
 * level, so a record logback would drop is dropped before the bridge formats it. Handlers named
 * this way are themselves made when the first record is published.
 *
 * <p>The levels are read when JUL initialises, normally after {@code --log-level} is applied. A
 * level more verbose than INFO is pushed onto JUL at once ({@link #levelsSet}), whatever JUL's
 * state: a debug start is not a start anyone times. An operator's own JUL configuration ({@code
 * java.util.logging.config.file} or {@code .class}) and a logback configured from a file (the
 * tests' {@code logback-test.xml}) get the bridge installed at once, as before.
 */
public final class JulBridge {
  static final String CONFIG_CLASS = "java.util.logging.config.class";
  static final String CONFIG_FILE = "java.util.logging.config.file";

  /** Marks a logback context whose JUL routing is left to JUL's first use. */
  private static final String ON_FIRST_USE = JulBridge.class.getName() + ".onFirstUse";

  /**
   * Called by JUL's {@code LogManager} while it initialises, never by acceld's code.
   *
   * @throws IOException never: the configuration is read from memory
   */
  public JulBridge() throws IOException {
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    String properties =
        factory instanceof LoggerContext context
            ? properties(context)
            : "handlers=" + SLF4JBridgeHandler.class.getName() + "\n";
    configure(properties);
  }

  /**
   * At logback's set-up: has JUL route itself into logback when first used. Leaves an operator's
   * own JUL configuration alone, in which case {@link #levelsSet} installs the bridge at once.
   */
  static void routeOnFirstUse(LoggerContext context) {
    if (System.getProperty(CONFIG_CLASS) != null || System.getProperty(CONFIG_FILE) != null) {
      return;
    }
    // A JVM-wide setting, as JUL's configuration is: read once, when JUL initialises.
    System.setProperty(CONFIG_CLASS, JulBridge.class.getName());
    context.putObject(ON_FIRST_USE, Boolean.TRUE);
  }

  /** Once the levels are final ({@code --log-level} applied). */
  static void levelsSet(LoggerContext context) {
    if (context.getObject(ON_FIRST_USE) == null) {
      if (!SLF4JBridgeHandler.isInstalled()) {
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
      }
      return;
    }
    Level root = context.getLogger(Logger.ROOT_LOGGER_NAME).getLevel();
    if (root != null && !root.isGreaterOrEqual(Level.INFO)) {
      try {
        // Initialises JUL now if nothing has (through the constructor, with these levels), and
        // applies them again if something has.
        configure(properties(context));
      } catch (IOException e) {
        throw new IllegalStateException("unreachable: the configuration is in memory", e);
      }
    }
  }

  /** Hands JUL {@code properties}, in its properties format (ISO 8859-1). */
  private static void configure(String properties) throws IOException {
    LogManager.getLogManager()
        .readConfiguration(
            new ByteArrayInputStream(properties.getBytes(StandardCharsets.ISO_8859_1)));
  }

  /**
   * JUL's configuration in its properties format: the bridge as the root's only handler, and the
   * JUL level of every logger logback has a level for.
   */
  static String properties(LoggerContext context) {
    StringBuilder out = new StringBuilder();
    out.append("handlers=").append(SLF4JBridgeHandler.class.getName()).append('\n');
    for (Logger logger : context.getLoggerList()) {
      Level level = logger.getLevel();
      if (level == null) {
        continue;
      }
      String name = logger.getName().equals(Logger.ROOT_LOGGER_NAME) ? "" : logger.getName();
      out.append(name).append(".level=").append(JULHelper.asJULLevel(level).getName()).append('\n');
    }
    return out.toString();
  }
}
