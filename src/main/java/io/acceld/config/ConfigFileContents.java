package io.acceld.config;

import io.acceld.discovery.ClassificationRule;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * What the config file says, by top-level key: the text of each scalar setting (parsed later, by
 * precedence, only if no flag or env var overrides it), the {@code rules:} and the {@code
 * resources:} sections. Any other key is refused with a spelling suggestion, so a typo never
 * silently leaves a default in place.
 *
 * @param settings setting text by key, with where it was written
 */
record ConfigFileContents(
    Map<String, FileValue> settings,
    List<ClassificationRule> rules,
    Map<String, SharingPolicy> sharing) {
  static final ConfigFileContents NONE = new ConfigFileContents(Map.of(), List.of(), Map.of());

  /** A setting's text as written, and where, so a parse error can name file, line and key. */
  record FileValue(String text, String where) {}

  ConfigFileContents {
    settings = Map.copyOf(settings);
    rules = List.copyOf(rules);
    sharing = Map.copyOf(sharing);
  }

  /**
   * @throws ConfigException naming the file, line and key of the first problem
   */
  static ConfigFileContents read(Path path) {
    YamlConfigFile file = YamlConfigFile.read(path);
    Map<String, FileValue> settings = new HashMap<>();
    List<ClassificationRule> rules = new ArrayList<>();
    Map<String, SharingPolicy> sharing = new HashMap<>();
    for (NodeTuple tuple : file.entries()) {
      String key = YamlConfigFile.key(tuple);
      Node value = tuple.getValueNode();
      if (key.equals(RulesSection.KEY)) {
        rules.addAll(RulesSection.parse(value, file));
      } else if (key.equals(ResourcesSection.KEY)) {
        sharing.putAll(ResourcesSection.parse(value, file));
      } else if (Settings.byKey(key).isPresent()) {
        if (!(value instanceof ScalarNode scalar)) {
          throw file.error(
              value, key, "expects a single value, got a " + YamlConfigFile.kind(value));
        }
        settings.put(key, new FileValue(scalar.getValue(), file.where(scalar, key)));
      } else {
        throw file.error(
            tuple.getKeyNode(), key, "unknown key" + Suggestions.didYouMean(key, knownKeys()));
      }
    }
    return new ConfigFileContents(settings, rules, sharing);
  }

  /** Every top-level key, settings first, in the order help lists them. */
  private static List<String> knownKeys() {
    List<String> known = new ArrayList<>();
    Settings.ALL.forEach(s -> known.add(s.key()));
    known.add(RulesSection.KEY);
    known.add(ResourcesSection.KEY);
    return known;
  }
}
