package io.acceld.config;

import io.acceld.discovery.ClassPattern;
import io.acceld.discovery.ClassificationRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * The config file's {@code rules:} section: the operator's classification rules, tried before the
 * built-in ones.
 *
 * <pre>{@code
 * rules:
 *   - vendor: 0x1d0f
 *     driver: neuron
 *     resource: aws.amazon.com/neuron
 * }</pre>
 */
final class RulesSection {
  static final String KEY = "rules";

  private static final List<String> RULE_KEYS =
      List.of("vendor", "device", "class", "driver", "resource");

  private RulesSection() {}

  /**
   * @throws ConfigException located at the first field that is wrong
   */
  static List<ClassificationRule> parse(Node node, YamlConfigFile file) {
    if (!(node instanceof SequenceNode sequence)) {
      throw file.error(node, KEY, "expects a list of rules, got a " + YamlConfigFile.kind(node));
    }
    List<ClassificationRule> rules = new ArrayList<>();
    for (Node item : sequence.getValue()) {
      if (!(item instanceof MappingNode rule)) {
        throw file.error(item, KEY, "each rule is a mapping with keys " + RULE_KEYS);
      }
      Map<String, ScalarNode> fields = new HashMap<>();
      for (NodeTuple tuple : file.entries(rule)) {
        String key = YamlConfigFile.key(tuple);
        if (!RULE_KEYS.contains(key)) {
          throw file.error(
              tuple.getKeyNode(), KEY + "." + key, "unknown rule key; rules take " + RULE_KEYS);
        }
        if (!(tuple.getValueNode() instanceof ScalarNode scalar)) {
          throw file.error(tuple.getValueNode(), KEY + "." + key, "expects a single value");
        }
        fields.put(key, scalar);
      }
      ScalarNode resource = fields.get("resource");
      if (resource == null) {
        throw file.error(item, KEY, "a rule needs a 'resource' to name");
      }
      rules.add(new RuleReader(fields, file).build(resource.getValue(), item));
    }
    return rules;
  }

  /** Builds one rule, turning each field's parse error into a located config error. */
  private record RuleReader(Map<String, ScalarNode> fields, YamlConfigFile file) {
    ClassificationRule build(String resource, Node item) {
      OptionalInt vendor = hex("vendor");
      OptionalInt device = hex("device");
      Optional<ClassPattern> pciClass = Optional.empty();
      ScalarNode cls = fields.get("class");
      if (cls != null) {
        try {
          pciClass = Optional.of(ClassPattern.parse(cls.getValue()));
        } catch (IllegalArgumentException e) {
          throw file.error(cls, KEY + ".class", e.getMessage());
        }
      }
      Optional<String> driver = Optional.ofNullable(fields.get("driver")).map(ScalarNode::getValue);
      try {
        return new ClassificationRule(vendor, device, pciClass, driver, resource);
      } catch (IllegalArgumentException e) {
        throw file.error(item, KEY + ".resource", e.getMessage());
      }
    }

    private OptionalInt hex(String key) {
      ScalarNode node = fields.get(key);
      if (node == null) {
        return OptionalInt.empty();
      }
      try {
        return OptionalInt.of(Parsers.hexId().parse(node.getValue()));
      } catch (IllegalArgumentException e) {
        throw file.error(node, KEY + "." + key, e.getMessage());
      }
    }
  }
}
