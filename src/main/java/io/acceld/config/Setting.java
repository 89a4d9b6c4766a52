package io.acceld.config;

import java.util.Locale;
import java.util.Objects;

/**
 * One configurable value. The same key names its flag ({@code --sysfs-root}), its env var ({@code
 * ACCELD_SYSFS_ROOT}) and its YAML key ({@code sysfs-root}), so the three can never drift apart.
 *
 * @param key kebab-case name
 * @param paramLabel placeholder shown in help, such as {@code DIR}
 * @param description one line for help and the README
 * @param parser turns text into the value
 * @param defaultText the default as text, parsed like any other source; null for no default
 */
public record Setting<T>(
    String key, String paramLabel, String description, ValueParser<T> parser, String defaultText) {

  public Setting {
    Objects.requireNonNull(key);
    Objects.requireNonNull(parser);
  }

  /**
   * A setting is its key: {@link Settings} holds one of each. The record's own equals and hashCode
   * would hash the description and the parser on every lookup of a configuration value, and their
   * method-handle bootstrap was 10-15 ms of the first {@code ConfigLoader.load}.
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof Setting<?> other && key.equals(other.key);
  }

  @Override
  public int hashCode() {
    return key.hashCode();
  }

  public String flag() {
    return "--" + key;
  }

  public String envVar() {
    return "ACCELD_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /**
   * The default as help and the references print it: {@code (none)} when there is none, rather than
   * an empty string an operator cannot tell from a missing line.
   */
  public String defaultShown() {
    return defaultText == null || defaultText.isEmpty() ? "(none)" : defaultText;
  }

  /** Whether the flag may be given without a value ({@code --cdi} means {@code --cdi=true}). */
  public boolean isSwitch() {
    return "BOOL".equals(paramLabel);
  }
}
