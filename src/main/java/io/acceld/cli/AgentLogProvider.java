package io.acceld.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.LogbackServiceProvider;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.status.StatusUtil;
import ch.qos.logback.core.util.StatusPrinter;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The agent's SLF4J binding: logback, set up by {@link LogbackDefaults} directly.
 *
 * <p>Logback's own provider runs its {@code ContextInitializer} first, which looks up configurators
 * through the service loader and records a status line for each step. Those lines are built with
 * Java 11 string concatenation, whose first use on Java 17 spins about fifteen method-handle
 * classes no class-data archive holds: 17-22 ms of every command's start ({@code acceld version},
 * medians of 21 alternated starts), before a flag is read. Where logback's defaults step aside (an
 * operator's {@code -Dlogback.configurationFile}, a {@code logback-test.xml} on the class path),
 * logback's own initializer runs as before.
 *
 * <p>{@link Main} names this class in {@code slf4j.provider} before its first logger.
 */
public final class AgentLogProvider implements SLF4JServiceProvider {
  /** SLF4J's choice of provider, which skips its service-loader search. */
  static final String PROVIDER_PROPERTY = "slf4j.provider";

  /** SLF4J's own reports: WARN keeps it from announcing the provider on every start. */
  static final String VERBOSITY_PROPERTY = "slf4j.internal.verbosity";

  private LoggerContext context;
  private IMarkerFactory markers;
  private MDCAdapter mdc;

  @Override
  public void initialize() {
    LoggerContext made = new LoggerContext();
    made.setName(CoreConstants.DEFAULT_CONTEXT_NAME);
    LogbackMDCAdapter adapter = new LogbackMDCAdapter();
    made.setMDCAdapter(adapter);
    LogbackDefaults defaults = new LogbackDefaults();
    defaults.setContext(made);
    if (defaults.configure(made) != Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY) {
      try {
        new ContextInitializer(made).autoConfig();
      } catch (JoranException e) {
        // logback recorded what was wrong in the file: printed below, as its own provider does
      }
    }
    // Only when there is something to print: the printer's class makes a date formatter when it
    // loads, which pulls in java.time's whole formatting layer (~90 classes, 0.4 MiB of the
    // class-data archive and so of every node's RSS) for lines a healthy start never writes.
    if (!new StatusUtil(made).isWarningOrErrorFree(0)) {
      StatusPrinter.printInCaseOfErrorsOrWarnings(made);
    }
    made.start();
    context = made;
    markers = new BasicMarkerFactory();
    mdc = adapter;
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return context;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return LogbackServiceProvider.REQUESTED_API_VERSION;
  }
}
