package io.acceld.config;

import io.acceld.discovery.ClassificationRule;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The resolved, validated configuration: one value per {@link Setting}, with where it came from,
 * plus the structured parts only the YAML file can hold. Immutable.
 */
public final class AgentConfig {
  /** Where a value came from, in increasing precedence. */
  public enum Source {
    DEFAULT,
    FILE,
    ENV,
    FLAG,
    /** Set by {@code --simulate} because no flag named it. */
    SIMULATE
  }

  /** A value and its source. */
  public record Resolved(Object value, Source source) {}

  private final Map<Setting<?>, Resolved> values;
  private final List<ClassificationRule> rules;
  private final Map<String, SharingPolicy> sharing;
  private final Optional<Path> configFile;
  private final Map<String, String> environment;

  AgentConfig(
      Map<Setting<?>, Resolved> values,
      List<ClassificationRule> rules,
      Map<String, SharingPolicy> sharing,
      Optional<Path> configFile,
      Map<String, String> environment) {
    this.values = Map.copyOf(values);
    this.rules = List.copyOf(rules);
    this.sharing = Map.copyOf(sharing);
    this.configFile = configFile;
    this.environment = Map.copyOf(environment);
  }

  @SuppressWarnings("unchecked")
  public <T> T get(Setting<T> setting) {
    Resolved r = values.get(setting);
    if (r == null) {
      throw new IllegalStateException("setting " + setting.key() + " has no value");
    }
    return (T) r.value();
  }

  public Source sourceOf(Setting<?> setting) {
    return values.get(setting).source();
  }

  /** The operator's classification rules, tried before the built-in ones. */
  public List<ClassificationRule> rules() {
    return rules;
  }

  /** How {@code resource}'s devices are shared; {@link SharingPolicy#NONE} unless configured. */
  public SharingPolicy sharing(String resource) {
    return sharing.getOrDefault(resource, SharingPolicy.NONE);
  }

  public Optional<Path> configFile() {
    return configFile;
  }

  /**
   * The environment this configuration was resolved against, for the few conventions that are not
   * acceld's own variables (a DaemonSet's {@code NODE_NAME}). Read from here rather than {@code
   * System.getenv()} so a test, or an in-process CLI run, decides what the agent sees.
   */
  public Map<String, String> environment() {
    return environment;
  }

  /**
   * This configuration with {@code overrides} applied to every setting not given as a flag. That is
   * all {@code --simulate} changes: where the roots and the NVML library come from.
   */
  public AgentConfig withSimulated(Map<Setting<?>, Object> overrides) {
    Map<Setting<?>, Resolved> next = new HashMap<>(values);
    overrides.forEach(
        (setting, value) -> {
          Objects.requireNonNull(value);
          if (sourceOf(setting) != Source.FLAG) {
            next.put(setting, new Resolved(value, Source.SIMULATE));
          }
        });
    return new AgentConfig(next, rules, sharing, configFile, environment);
  }
}
