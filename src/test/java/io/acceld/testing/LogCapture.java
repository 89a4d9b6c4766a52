package io.acceld.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Records what one class logs, for tests that assert on operator-visible log lines. */
public final class LogCapture implements AutoCloseable {
  private final Logger logger;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private LogCapture(String name) {
    logger = (Logger) LoggerFactory.getLogger(name);
    appender.start();
    logger.addAppender(appender);
  }

  public static LogCapture of(Class<?> source) {
    return new LogCapture(source.getName());
  }

  /** What every class under {@code loggerName} logs, e.g. {@code "io.acceld"} for the agent. */
  public static LogCapture of(String loggerName) {
    return new LogCapture(loggerName);
  }

  /** Formatted messages logged at WARN or above, in order. */
  public List<String> warnings() {
    return appender.list.stream()
        .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  /** Every formatted message, at any level, in order. */
  public List<String> messages() {
    return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  /** Formatted messages logged at INFO or above, in order. */
  public List<String> infos() {
    return appender.list.stream()
        .filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    appender.stop();
  }
}
