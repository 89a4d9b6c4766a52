package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxy;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/** The hand-written text line is the line the pattern it replaced printed, byte for byte. */
class TextLogLayoutTest {
  /** The pattern the agent's text log was made with before {@link TextLogLayout}. */
  static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0}: %msg%n";

  final LoggerContext context = new LoggerContext();

  LoggingEvent event(String logger, Level level, String at, String message, Object... args) {
    LoggingEvent e =
        new LoggingEvent("fqcn", context.getLogger(logger), level, message, null, args);
    e.setThreadName("acceld-health");
    e.setTimeStamp(Instant.parse(at).toEpochMilli());
    return e;
  }

  String pattern(ZoneId zone, LoggingEvent e) {
    PatternLayout layout = new PatternLayout();
    layout.setContext(context);
    layout.setPattern(PATTERN.replace("XXX}", "XXX, " + zone.getId() + "}"));
    layout.start();
    return layout.doLayout(e);
  }

  @Test
  void everyLevelAndZoneGivesThePatternsLine() {
    List<String> zones =
        List.of("UTC", "Europe/Berlin", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham");
    List<String> times =
        List.of(
            "2026-12-01T12:00:00.123Z",
            "2026-07-01T23:59:59.999Z",
            "2026-03-29T01:00:00.000Z",
            "1999-12-31T23:59:59.001Z",
            "2024-02-29T12:34:56.789Z",
            "2100-03-01T00:00:00.000Z",
            "2041-07-15T08:00:00.500Z",
            "1970-01-01T00:00:00.000Z");
    for (String zoneId : zones) {
      ZoneId zone = ZoneId.of(zoneId);
      for (String at : times) {
        for (Level level : List.of(Level.TRACE, Level.DEBUG, Level.INFO, Level.WARN, Level.ERROR)) {
          LoggingEvent e =
              event("io.acceld.agent.Agent", level, at, "Device {} is now {}", "GPU-1", "Healthy");
          assertThat(new TextLogLayout(TimeZone.getTimeZone(zone)).doLayout(e))
              .as("%s at %s in %s", level, at, zoneId)
              .isEqualTo(pattern(zone, e));
        }
      }
    }
  }

  @Test
  void aLoggerWithoutAPackageAndAMessageWithoutArguments() {
    LoggingEvent e = event("ROOT", Level.INFO, "2026-12-01T12:00:00.123Z", "plain {} text");
    ZoneId utc = ZoneId.of("UTC");

    assertThat(new TextLogLayout(TimeZone.getTimeZone(utc)).doLayout(e)).isEqualTo(pattern(utc, e));
  }

  @Test
  void anExceptionFollowsTheLineWithItsTraceAndCause() {
    LoggingEvent e =
        event("io.acceld.agent.Agent", Level.ERROR, "2026-12-01T12:00:00.123Z", "failed");
    e.setThrowableProxy(
        new ThrowableProxy(
            new IllegalStateException("outer", new java.io.IOException("inner cause"))));
    ZoneId utc = ZoneId.of("UTC");

    String line = new TextLogLayout(TimeZone.getTimeZone(utc)).doLayout(e);

    assertThat(line).isEqualTo(pattern(utc, e));
    assertThat(line)
        .startsWith("2026-12-01T12:00:00.123Z ERROR [acceld-health] Agent: failed\n")
        .contains("java.lang.IllegalStateException: outer\n\tat ")
        .contains("Caused by: java.io.IOException: inner cause")
        .endsWith("\n");
  }
}
