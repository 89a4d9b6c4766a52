package io.acceld.cli;

import java.util.TimeZone;

/**
 * The log lines' timestamps, written by arithmetic on the epoch millisecond. {@code java.time}'s
 * formatters and zone rules would be ~90 classes on every start, and in every node's class-data
 * archive, for one timestamp a line; the zone's offset comes from {@link TimeZone}, which the
 * runtime has loaded before the agent runs. Years 0000-9999, as logback's {@code %d} writes them.
 */
final class LogTimestamps {
  private static final long MILLIS_PER_DAY = 86_400_000L;

  private LogTimestamps() {}

  /**
   * {@code yyyy-MM-dd'T'HH:mm:ss.SSSXXX} in {@code zone}: {@code Z} for an offset of zero, else
   * {@code +HH:MM} ({@code --log-format text}).
   */
  static void local(StringBuilder out, long epochMillis, TimeZone zone) {
    int offsetMillis = zone.getOffset(epochMillis);
    dateAndTime(out, epochMillis + offsetMillis);
    out.append('.');
    digits(out, (int) Math.floorMod(epochMillis, 1000L), 3);
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
   * ISO-8601 in UTC as {@code Instant.toString()} writes a millisecond instant: {@code
   * yyyy-MM-dd'T'HH:mm:ss}, then {@code .SSS} unless the milliseconds are zero, then {@code Z}
   * ({@code --log-format json}).
   */
  static String utc(long epochMillis) {
    StringBuilder out = new StringBuilder(24);
    dateAndTime(out, epochMillis);
    int millis = (int) Math.floorMod(epochMillis, 1000L);
    if (millis != 0) {
      digits(out.append('.'), millis, 3);
    }
    return out.append('Z').toString();
  }

  /** {@code yyyy-MM-dd'T'HH:mm:ss} of a local time counted in milliseconds from the epoch. */
  private static void dateAndTime(StringBuilder out, long localMillis) {
    civilDate(out, Math.floorDiv(localMillis, MILLIS_PER_DAY));
    int secondOfDay = (int) (Math.floorMod(localMillis, MILLIS_PER_DAY) / 1000);
    out.append('T');
    digits(out, secondOfDay / 3600, 2).append(':');
    digits(out, secondOfDay / 60 % 60, 2).append(':');
    digits(out, secondOfDay % 60, 2);
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
