package io.acceld.cli;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import java.util.TimeZone;

/**
 * {@code --log-format text}, the default: {@code 2026-12-03T05:29:55.976Z INFO [main] Agent:
 * message}, then the exception's trace if the event has one. It is the line logback's pattern
 * {@code %d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0}: %msg%n} printed, written
 * by hand: the pattern layout parses its pattern and builds a converter for each part, with
 * Logback's table of every converter and {@code java.time}'s formatter behind them, on every start
 * (20-35 ms of a 2-core node's, for one fixed line).
 *
 * <p>The timestamp is {@link LogTimestamps#local}: no {@code java.time} on the way.
 */
public final class TextLogLayout extends LayoutBase<ILoggingEvent> {
  private final TimeZone zone;

  public TextLogLayout() {
    this(TimeZone.getDefault());
  }

  TextLogLayout(TimeZone zone) {
    this.zone = (TimeZone) zone.clone();
  }

  @Override
  public String doLayout(ILoggingEvent event) {
    StringBuilder line = new StringBuilder(160);
    LogTimestamps.local(line, event.getTimeStamp(), zone);
    line.append(' ');
    String level = event.getLevel().toString();
    line.append(level);
    for (int i = level.length(); i < 5; i++) {
      line.append(' ');
    }
    String logger = event.getLoggerName();
    line.append(" [")
        .append(event.getThreadName())
        .append("] ")
        .append(logger.substring(logger.lastIndexOf('.') + 1))
        .append(": ")
        .append(event.getFormattedMessage())
        .append('\n');
    IThrowableProxy thrown = event.getThrowableProxy();
    if (thrown != null) {
      line.append(ThrowableProxyUtil.asString(thrown));
      if (line.charAt(line.length() - 1) != '\n') {
        line.append('\n');
      }
    }
    return line.toString();
  }
}
