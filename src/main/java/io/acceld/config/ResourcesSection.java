package io.acceld.config;

import io.acceld.inventory.ResourceNames;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * The config file's {@code resources:} section: per-resource sharing.
 *
 * <pre>{@code
 * resources:
 *   nvidia.com/gpu: {replicas: 4, rename-shared: true}
 * }</pre>
 */
final class ResourcesSection {
  static final String KEY = "resources";

  private static final List<String> SHARING_KEYS = List.of("replicas", "rename-shared");

  private ResourcesSection() {}

  /**
   * @return the sharing policy of each resource the section names
   * @throws ConfigException located at the first resource name or option that is wrong
   */
  static Map<String, SharingPolicy> parse(Node node, YamlConfigFile file) {
    if (!(node instanceof MappingNode resources)) {
      throw file.error(node, KEY, "expects a mapping of resource name to options");
    }
    Map<String, SharingPolicy> sharing = new HashMap<>();
    for (NodeTuple tuple : file.entries(resources)) {
      String resource = YamlConfigFile.key(tuple);
      String where = KEY + "." + resource;
      ResourceNames.problem(resource)
          .ifPresent(
              p -> {
                throw file.error(tuple.getKeyNode(), where, p);
              });
      if (!(tuple.getValueNode() instanceof MappingNode options)) {
        throw file.error(tuple.getValueNode(), where, "expects options like 'replicas: 4'");
      }
      sharing.put(resource, policy(options, where, file));
    }
    return sharing;
  }

  private static SharingPolicy policy(MappingNode options, String where, YamlConfigFile file) {
    int replicas = 1;
    boolean rename = false;
    for (NodeTuple option : file.entries(options)) {
      String key = YamlConfigFile.key(option);
      String optionWhere = where + "." + key;
      if (!SHARING_KEYS.contains(key)) {
        throw file.error(
            option.getKeyNode(), optionWhere, "unknown option; resources take " + SHARING_KEYS);
      }
      if (!(option.getValueNode() instanceof ScalarNode scalar)) {
        throw file.error(option.getValueNode(), optionWhere, "expects a single value");
      }
      try {
        if (key.equals("replicas")) {
          replicas = Parsers.integer(1, SharingPolicy.MAX_REPLICAS).parse(scalar.getValue());
        } else {
          rename = Parsers.bool().parse(scalar.getValue());
        }
      } catch (IllegalArgumentException e) {
        throw file.error(scalar, optionWhere, e.getMessage());
      }
    }
    return new SharingPolicy(replicas, rename);
  }
}
