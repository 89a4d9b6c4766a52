package io.acceld.cli;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.event.KeyValuePair;

/**
 * {@code --log-format json}: one JSON object per line, with {@code timestamp} (ISO-8601 UTC),
 * {@code level}, {@code logger}, {@code thread}, {@code message}, the event's structured fields
 * (SLF4J key-value pairs such as {@code device}, {@code resource}, {@code reason}) as top-level
 * keys, and {@code error} when the event carries an exception. A log shipper (Fluent Bit, Vector,
 * Loki's promtail) then indexes the fields without a parsing rule.
 *
 * <p>Written by hand rather than through logback's {@code JsonEncoder}, whose objects nest the
 * fields in a list and print epoch milliseconds, which shippers do not read as fields and a time.
 * Every string is escaped, control characters included, so a device name or a client's bytes in a
 * message can never break a line in two.
 */
public final class JsonLogLayout extends LayoutBase<ILoggingEvent> {
  private static final Set<String> RESERVED =
      Set.of("timestamp", "level", "logger", "thread", "message", "error");

  @Override
  public String doLayout(ILoggingEvent event) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("timestamp", LogTimestamps.utc(event.getTimeStamp()));
    fields.put("level", event.getLevel().toString());
    fields.put("logger", event.getLoggerName());
    fields.put("thread", event.getThreadName());
    fields.put("message", event.getFormattedMessage());
    List<KeyValuePair> pairs = event.getKeyValuePairs();
    if (pairs != null) {
      for (KeyValuePair pair : pairs) {
        if (!RESERVED.contains(pair.key)) {
          fields.put(pair.key, String.valueOf(pair.value));
        }
      }
    }
    IThrowableProxy thrown = event.getThrowableProxy();
    if (thrown != null) {
      fields.put("error", ThrowableProxyUtil.asString(thrown));
    }
    StringBuilder line = new StringBuilder(256).append('{');
    boolean first = true;
    for (Map.Entry<String, String> field : fields.entrySet()) {
      if (!first) {
        line.append(',');
      }
      first = false;
      quote(line, field.getKey());
      line.append(':');
      quote(line, field.getValue());
    }
    return line.append("}\n").toString();
  }

  static void quote(StringBuilder out, String text) {
    out.append('"');
    if (text != null) {
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        switch (c) {
          case '"' -> out.append("\\\"");
          case '\\' -> out.append("\\\\");
          case '\n' -> out.append("\\n");
          case '\r' -> out.append("\\r");
          case '\t' -> out.append("\\t");
          default -> {
            if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029') {
              out.append(String.format("\\u%04x", (int) c));
            } else {
              out.append(c);
            }
          }
        }
      }
    }
    out.append('"');
  }
}
