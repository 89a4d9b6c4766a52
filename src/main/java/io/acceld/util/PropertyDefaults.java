package io.acceld.util;

import java.util.Map;
import java.util.Properties;

/**
 * System properties a library reads once per JVM (Netty's, the JDK HTTP server's), with the values
 * the agent relies on. {@link #install} sets each one the operator has not set with {@code -D}, so
 * an operator's value always wins; it is idempotent.
 *
 * @param values property name to the agent's value
 */
public record PropertyDefaults(Map<String, String> values) {
  public PropertyDefaults {
    values = Map.copyOf(values);
  }

  /** Into this JVM's system properties. */
  public void install() {
    install(System.getProperties());
  }

  public void install(Properties properties) {
    values.forEach(properties::putIfAbsent);
  }
}
