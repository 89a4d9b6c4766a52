package io.acceld.cli;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * {@code --log-format text}, the default: {@code 2026-12-03T05:29:55.976Z INFO [main] Agent:
 * message}, then the exception's trace if the event has one. It is the line logback's pattern
 * {@code %d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0}: %msg%n} printed, written
 * by hand: the pattern layout parses its pattern and builds a converter for each part, with
 * Logback's table of every converter and {@code java.time}'s formatter behind them, on every start
 * (20-35 ms of a 2-core node's, for one fixed line).
 */
public final class TextLogLayout extends LayoutBase<ILoggingEvent> {
  private final ZoneId zone;

  public TextLogLayout() {
    this(ZoneId.systemDefault());
  }

  TextLogLayout(ZoneId zone) {
    this.zone = zone;
  }

  @Override
  public String doLayout(ILoggingEvent event) {
    StringBuilder line = new StringBuilder(160);
    timestamp(line, event.getTimeStamp());
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

  /** {@code yyyy-MM-dd'T'HH:mm:ss.SSSXXX} in the zone: {@code Z} for UTC, else {@code +HH:MM}. */
  private void timestamp(StringBuilder out, long epochMillis) {
    long seconds = Math.floorDiv(epochMillis, 1000L);
    int millis = (int) Math.floorMod(epochMillis, 1000L);
    ZoneOffset offset = zone.getRules().getOffset(java.time.Instant.ofEpochSecond(seconds));
    LocalDateTime t = LocalDateTime.ofEpochSecond(seconds, millis * 1_000_000, offset);
    digits(out, t.getYear(), 4).append('-');
    digits(out, t.getMonthValue(), 2).append('-');
    digits(out, t.getDayOfMonth(), 2).append('T');
    digits(out, t.getHour(), 2).append(':');
    digits(out, t.getMinute(), 2).append(':');
    digits(out, t.getSecond(), 2).append('.');
    digits(out, millis, 3);
    int total = offset.getTotalSeconds();
    if (total == 0) {
      out.append('Z');
      return;
    }
    out.append(total < 0 ? '-' : '+');
    int minutes = Math.abs(total) / 60;
    digits(out, minutes / 60, 2).append(':');
    digits(out, minutes % 60, 2);
  }

  private static StringBuilder digits(StringBuilder out, int value, int width) {
    String s = Integer.toString(value);
    for (int i = s.length(); i < width; i++) {
      out.append('0');
    }
    return out.append(s);
  }
}
