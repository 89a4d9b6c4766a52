package io.acceld.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.acceld.util.GuardedBy;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Records what one class logs, for tests that assert on operator-visible log lines. Safe to read
 * while the agent's threads are still logging: each read copies the lines logged so far.
 */
public final class LogCapture implements AutoCloseable {
  private final Logger logger;
  private final Recorder recorder = new Recorder();

  private LogCapture(String name) {
    logger = (Logger) LoggerFactory.getLogger(name);
    recorder.start();
    logger.addAppender(recorder);
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
    return atLeast(Level.WARN);
  }

  /** Every formatted message, at any level, in order. */
  public List<String> messages() {
    return atLeast(Level.ALL);
  }

  /** Formatted messages logged at INFO or above, in order. */
  public List<String> infos() {
    return atLeast(Level.INFO);
  }

  private List<String> atLeast(Level level) {
    return recorder.events().stream()
        .filter(e -> e.getLevel().isGreaterOrEqual(level))
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Override
  public void close() {
    logger.detachAppender(recorder);
    recorder.stop();
  }

  /**
   * Keeps every event. Logback's {@code ListAppender} hands out its plain {@code ArrayList}, which
   * a test iterating it while another thread logs breaks ({@code ConcurrentModificationException}).
   */
  private static final class Recorder extends AppenderBase<ILoggingEvent> {
    @GuardedBy("this")
    private final List<ILoggingEvent> events = new ArrayList<>();

    @Override
    protected void append(ILoggingEvent event) {
      event.prepareForDeferredProcessing();
      synchronized (this) {
        events.add(event);
      }
    }

    synchronized List<ILoggingEvent> events() {
      return List.copyOf(events);
    }
  }
}
