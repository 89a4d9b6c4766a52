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
 * <p>The zone's offset comes from {@link TimeZone}, which the runtime has loaded before the agent
 * runs, and the date from the day count by arithmetic: {@code java.time}'s zone rules and date
 * types would be another ~40 classes in every node's class-data archive for this one line.
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
    int offsetMillis = zone.getOffset(epochMillis);
    long local = epochMillis + offsetMillis;
    long days = Math.floorDiv(local, 86_400_000L);
    int millisOfDay = (int) Math.floorMod(local, 86_400_000L);
    civilDate(out, days);
    out.append('T');
    int secondOfDay = millisOfDay / 1000;
    digits(out, secondOfDay / 3600, 2).append(':');
    digits(out, secondOfDay / 60 % 60, 2).append(':');
    digits(out, secondOfDay % 60, 2).append('.');
    digits(out, millisOfDay % 1000, 3);
    if (offsetMillis == 0) {
      out.append('Z');
      return;
    }
    out.append(offsetMillis < 0 ? '-' : '+');
    int minutes = Math.abs(offsetMillis) / 60_000;
    digits(out, minutes / 60, 2).append(':');
    digits(out, minutes % 60, 2);
  }

  /**
   * {@code yyyy-MM-dd} of a day counted from 1970-01-01 in the proleptic Gregorian calendar (H.
   * Hinnant's days-to-civil: eras of 400 years, each 146,097 days, with March as the first month so
   * that the leap day falls last).
   */
  private static void civilDate(StringBuilder out, long epochDay) {
    long shifted = epochDay + 719_468; // days from 0000-03-01
    long era = Math.floorDiv(shifted, 146_097);
    long dayOfEra = shifted - era * 146_097;
    long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long monthFromMarch = (5 * dayOfYear + 2) / 153;
    int day = (int) (dayOfYear - (153 * monthFromMarch + 2) / 5 + 1);
    int month = (int) (monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9);
    long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
    digits(out, (int) year, 4).append('-');
    digits(out, month, 2).append('-');
    digits(out, day, 2);
  }

  private static StringBuilder digits(StringBuilder out, int value, int width) {
    String s = Integer.toString(value);
    for (int i = s.length(); i < width; i++) {
      out.append('0');
    }
    return out.append(s);
  }
}
