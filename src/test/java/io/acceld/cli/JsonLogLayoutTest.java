package io.acceld.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.event.KeyValuePair;

class JsonLogLayoutTest {
  final LoggerContext context = new LoggerContext();

  LoggingEvent event(String message, Object... args) {
    LoggingEvent e =
        new LoggingEvent(
            "fqcn", context.getLogger("io.acceld.agent.Agent"), Level.WARN, message, null, args);
    e.setThreadName("acceld-health");
    e.setTimeStamp(Instant.parse("2026-12-01T12:00:00.123Z").toEpochMilli());
    return e;
  }

  @Test
  void oneObjectPerLineWithTheStandardKeysAndTheEventsFields() throws Exception {
    LoggingEvent e = event("Device {} is now Unhealthy: {}", "GPU-1", "XID 79");
    e.setKeyValuePairs(
        List.of(
            new KeyValuePair("device", "GPU-1"),
            new KeyValuePair("resource", "nvidia.com/gpu"),
            new KeyValuePair("reason", "XID 79")));

    String line = new JsonLogLayout().doLayout(e);

    assertThat(line).endsWith("}\n").doesNotContain("\n{");
    JsonNode json = new ObjectMapper().readTree(line);
    assertThat(json.get("timestamp").asText()).isEqualTo("2026-12-01T12:00:00.123Z");
    assertThat(json.get("level").asText()).isEqualTo("WARN");
    assertThat(json.get("logger").asText()).isEqualTo("io.acceld.agent.Agent");
    assertThat(json.get("thread").asText()).isEqualTo("acceld-health");
    assertThat(json.get("message").asText()).isEqualTo("Device GPU-1 is now Unhealthy: XID 79");
    assertThat(json.get("device").asText()).isEqualTo("GPU-1");
    assertThat(json.get("resource").asText()).isEqualTo("nvidia.com/gpu");
    assertThat(json.get("reason").asText()).isEqualTo("XID 79");
  }

  @Test
  void controlCharactersQuotesAndExceptionsStayInsideTheOneLine() throws Exception {
    String hostile = "a\"b\\c\nd\u0000e\u001bf\u2028";
    LoggingEvent e = event("got {}", hostile);
    e.setThrowableProxy(
        new ch.qos.logback.classic.spi.ThrowableProxy(new IllegalStateException("boom")));

    String line = new JsonLogLayout().doLayout(e);

    assertThat(line.indexOf('\n')).isEqualTo(line.length() - 1);
    assertThat(line).doesNotContain("\u001b").doesNotContain("\u0000").doesNotContain("\u2028");
    JsonNode json = new ObjectMapper().readTree(line);
    assertThat(json.get("message").asText()).isEqualTo("got " + hostile);
    assertThat(json.get("error").asText()).contains("IllegalStateException: boom");
  }
}
