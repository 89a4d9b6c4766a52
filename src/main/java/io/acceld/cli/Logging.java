package io.acceld.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import org.slf4j.LoggerFactory;

/**
 * Log set-up: everything goes to stderr through logback (its appender is set up by {@link
 * LogbackDefaults}); grpc's java.util.logging is bridged in ({@link JulBridge}). {@code
 * --log-format json} swaps the appender's text pattern for {@link JsonLogLayout}.
 */
final class Logging {
  private static final String APPENDER = LogbackDefaults.APPENDER;

  private Logging() {}

  static void configure(String level, String format) {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(level, Level.INFO));
    JulBridge.levelsSet(root.getLoggerContext());
    if (format.equals("json")) {
      useJson(root);
    }
  }

  private static void useJson(Logger root) {
    Appender<ILoggingEvent> appender = root.getAppender(APPENDER);
    if (!(appender instanceof OutputStreamAppender<ILoggingEvent> stream)
        || stream.getEncoder() instanceof LayoutWrappingEncoder<ILoggingEvent> e
            && e.getLayout() instanceof JsonLogLayout) {
      return; // not our appender (a test's logback-test.xml), or already JSON
    }
    JsonLogLayout layout = new JsonLogLayout();
    layout.setContext(root.getLoggerContext());
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(root.getLoggerContext());
    encoder.setLayout(layout);
    encoder.start();
    stream.stop();
    stream.setEncoder(encoder);
    stream.start();
  }
}
