package io.acceld.config;

import io.acceld.config.AgentConfig.Resolved;
import io.acceld.config.AgentConfig.Source;
import io.acceld.discovery.ClassPattern;
import io.acceld.discovery.ClassificationRule;
import io.acceld.inventory.ResourceNames;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Resolves the configuration from its four sources with the precedence flag &gt; env &gt; file &gt;
 * default. Every error names its source: the flag, the env var, or the file with the line and key.
 */
public final class ConfigLoader {
  /** Read only when it exists; naming a file explicitly makes it required. */
  public static final Path DEFAULT_CONFIG_FILE = Path.of("/etc/acceld/config.yaml");

  public static final String CONFIG_ENV = "ACCELD_CONFIG";

  private static final List<String> RULE_KEYS =
      List.of("vendor", "device", "class", "driver", "resource");
  private static final List<String> SHARING_KEYS = List.of("replicas", "rename-shared");

  private ConfigLoader() {}

  /**
   * @param flags raw flag values by setting key, only for flags given on the command line
   * @param env the process environment
   * @param configFlag the {@code --config} flag, if given
   */
  public static AgentConfig load(
      Map<String, String> flags, Map<String, String> env, Optional<Path> configFlag) {
    Optional<Path> file = chooseFile(env, configFlag);
    FileContents contents = file.map(ConfigLoader::readFile).orElse(FileContents.EMPTY);

    Map<Setting<?>, Resolved> values = new HashMap<>();
    for (Setting<?> setting : Settings.ALL) {
      values.put(setting, resolve(setting, flags, env, contents, file));
    }
    return new AgentConfig(values, contents.rules(), contents.sharing(), file);
  }

  private static Optional<Path> chooseFile(Map<String, String> env, Optional<Path> configFlag) {
    if (configFlag.isPresent()) {
      return configFlag;
    }
    String fromEnv = env.get(CONFIG_ENV);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Optional.of(Path.of(fromEnv));
    }
    return Files.isRegularFile(DEFAULT_CONFIG_FILE)
        ? Optional.of(DEFAULT_CONFIG_FILE)
        : Optional.empty();
  }

  private static Resolved resolve(
      Setting<?> setting,
      Map<String, String> flags,
      Map<String, String> env,
      FileContents contents,
      Optional<Path> file) {
    String flag = flags.get(setting.key());
    if (flag != null) {
      return new Resolved(parse(setting, flag, "flag " + setting.flag()), Source.FLAG);
    }
    String fromEnv = env.get(setting.envVar());
    if (fromEnv != null) {
      return new Resolved(
          parse(setting, fromEnv, "environment variable " + setting.envVar()), Source.ENV);
    }
    ScalarNode fromFile = contents.scalars().get(setting.key());
    if (fromFile != null) {
      String where =
          "config file "
              + file.orElseThrow()
              + ", line "
              + line(fromFile)
              + ", key '"
              + setting.key()
              + "'";
      return new Resolved(parse(setting, fromFile.getValue(), where), Source.FILE);
    }
    if (setting.defaultText() == null) {
      return new Resolved(Optional.empty(), Source.DEFAULT);
    }
    return new Resolved(
        parse(setting, setting.defaultText(), "default of " + setting.key()), Source.DEFAULT);
  }

  private static Object parse(Setting<?> setting, String raw, String where) {
    try {
      return setting.parser().parse(raw);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(where + ": " + e.getMessage());
    }
  }

  /** What the YAML file said: scalar settings by key, the rules and per-resource sharing. */
  private record FileContents(
      Map<String, ScalarNode> scalars,
      List<ClassificationRule> rules,
      Map<String, SharingPolicy> sharing) {
    static final FileContents EMPTY = new FileContents(Map.of(), List.of(), Map.of());
  }

  private static FileContents readFile(Path file) {
    Node root;
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      // compose() keeps line numbers; duplicate keys are refused by uniqueKeys below.
      root = new Yaml(new LoaderOptions()).compose(reader);
    } catch (NoSuchFileException e) {
      throw new ConfigException("config file " + file + " does not exist");
    } catch (MarkedYAMLException e) {
      int line = e.getProblemMark() == null ? 0 : e.getProblemMark().getLine() + 1;
      throw new ConfigException(
          "config file " + file + ", line " + line + ": YAML syntax error: " + e.getProblem());
    } catch (YAMLException e) {
      throw new ConfigException("config file " + file + ": YAML error: " + e.getMessage());
    } catch (IOException e) {
      throw new ConfigException("config file " + file + " cannot be read: " + e.getMessage(), e);
    }
    if (root == null) {
      return FileContents.EMPTY;
    }
    FileErrors errors = new FileErrors(file);
    if (!(root instanceof MappingNode mapping)) {
      throw errors.at(
          root, null, "the file must be a mapping of settings, like 'sysfs-root: /sys'");
    }
    Map<String, ScalarNode> scalars = new HashMap<>();
    List<ClassificationRule> rules = new ArrayList<>();
    Map<String, SharingPolicy> sharing = new HashMap<>();
    for (NodeTuple tuple : uniqueKeys(mapping, errors)) {
      String key = ((ScalarNode) tuple.getKeyNode()).getValue();
      Node value = tuple.getValueNode();
      if (key.equals("rules")) {
        rules.addAll(parseRules(value, errors));
      } else if (key.equals("resources")) {
        sharing.putAll(parseSharing(value, errors));
      } else if (Settings.byKey(key).isPresent()) {
        if (!(value instanceof ScalarNode scalar)) {
          throw errors.at(value, key, "expects a single value, got a " + kind(value));
        }
        scalars.put(key, scalar);
      } else {
        throw errors.at(tuple.getKeyNode(), key, "unknown key" + suggestion(key));
      }
    }
    return new FileContents(scalars, rules, sharing);
  }

  /** {@code resources: {nvidia.com/gpu: {replicas: 4, rename-shared: true}}}. */
  private static Map<String, SharingPolicy> parseSharing(Node node, FileErrors errors) {
    if (!(node instanceof MappingNode resources)) {
      throw errors.at(node, "resources", "expects a mapping of resource name to options");
    }
    Map<String, SharingPolicy> sharing = new HashMap<>();
    for (NodeTuple tuple : uniqueKeys(resources, errors)) {
      String resource = ((ScalarNode) tuple.getKeyNode()).getValue();
      String where = "resources." + resource;
      ResourceNames.problem(resource)
          .ifPresent(
              p -> {
                throw errors.at(tuple.getKeyNode(), where, p);
              });
      if (!(tuple.getValueNode() instanceof MappingNode options)) {
        throw errors.at(tuple.getValueNode(), where, "expects options like 'replicas: 4'");
      }
      int replicas = 1;
      boolean rename = false;
      for (NodeTuple option : uniqueKeys(options, errors)) {
        String key = ((ScalarNode) option.getKeyNode()).getValue();
        String optionWhere = where + "." + key;
        if (!SHARING_KEYS.contains(key)) {
          throw errors.at(
              option.getKeyNode(), optionWhere, "unknown option; resources take " + SHARING_KEYS);
        }
        if (!(option.getValueNode() instanceof ScalarNode scalar)) {
          throw errors.at(option.getValueNode(), optionWhere, "expects a single value");
        }
        try {
          if (key.equals("replicas")) {
            replicas = Parsers.integer(1, SharingPolicy.MAX_REPLICAS).parse(scalar.getValue());
          } else {
            rename = Parsers.bool().parse(scalar.getValue());
          }
        } catch (IllegalArgumentException e) {
          throw errors.at(scalar, optionWhere, e.getMessage());
        }
      }
      sharing.put(resource, new SharingPolicy(replicas, rename));
    }
    return sharing;
  }

  private static List<ClassificationRule> parseRules(Node node, FileErrors errors) {
    if (!(node instanceof SequenceNode sequence)) {
      throw errors.at(node, "rules", "expects a list of rules, got a " + kind(node));
    }
    List<ClassificationRule> rules = new ArrayList<>();
    for (Node item : sequence.getValue()) {
      if (!(item instanceof MappingNode rule)) {
        throw errors.at(item, "rules", "each rule is a mapping with keys " + RULE_KEYS);
      }
      Map<String, ScalarNode> fields = new HashMap<>();
      for (NodeTuple tuple : uniqueKeys(rule, errors)) {
        String key = ((ScalarNode) tuple.getKeyNode()).getValue();
        if (!RULE_KEYS.contains(key)) {
          throw errors.at(
              tuple.getKeyNode(), "rules." + key, "unknown rule key; rules take " + RULE_KEYS);
        }
        if (!(tuple.getValueNode() instanceof ScalarNode scalar)) {
          throw errors.at(tuple.getValueNode(), "rules." + key, "expects a single value");
        }
        fields.put(key, scalar);
      }
      ScalarNode resource = fields.get("resource");
      if (resource == null) {
        throw errors.at(item, "rules", "a rule needs a 'resource' to name");
      }
      rules.add(new RuleReader(fields, errors).build(resource.getValue(), item));
    }
    return rules;
  }

  /** Builds one rule, turning each field's parse error into a located config error. */
  private record RuleReader(Map<String, ScalarNode> fields, FileErrors errors) {
    ClassificationRule build(String resource, Node item) {
      OptionalInt vendor = hex("vendor");
      OptionalInt device = hex("device");
      Optional<ClassPattern> pciClass = Optional.empty();
      ScalarNode cls = fields.get("class");
      if (cls != null) {
        try {
          pciClass = Optional.of(ClassPattern.parse(cls.getValue()));
        } catch (IllegalArgumentException e) {
          throw errors.at(cls, "rules.class", e.getMessage());
        }
      }
      Optional<String> driver = Optional.ofNullable(fields.get("driver")).map(ScalarNode::getValue);
      try {
        return new ClassificationRule(vendor, device, pciClass, driver, resource);
      } catch (IllegalArgumentException e) {
        throw errors.at(item, "rules.resource", e.getMessage());
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
        throw errors.at(node, "rules." + key, e.getMessage());
      }
    }
  }

  private static List<NodeTuple> uniqueKeys(MappingNode mapping, FileErrors errors) {
    Map<String, Node> seen = new HashMap<>();
    for (NodeTuple tuple : mapping.getValue()) {
      if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
        throw errors.at(tuple.getKeyNode(), null, "keys must be plain words");
      }
      if (seen.put(key.getValue(), key) != null) {
        throw errors.at(key, key.getValue(), "the key appears twice");
      }
    }
    return mapping.getValue();
  }

  /** Located errors for one file. */
  private record FileErrors(Path file) {
    ConfigException at(Node node, String key, String problem) {
      String where = "config file " + file + ", line " + line(node);
      return new ConfigException(
          where + (key == null ? "" : ", key '" + key + "'") + ": " + problem);
    }
  }

  private static int line(Node node) {
    return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
  }

  private static String kind(Node node) {
    return switch (node.getNodeId()) {
      case mapping -> "mapping";
      case sequence -> "list";
      default -> "value";
    };
  }

  private static String suggestion(String key) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    List<String> known = new ArrayList<>();
    Settings.ALL.forEach(s -> known.add(s.key()));
    known.add("rules");
    known.add("resources");
    for (String candidate : known) {
      int d = editDistance(key, candidate);
      if (d < bestDistance) {
        bestDistance = d;
        best = candidate;
      }
    }
    return best != null && bestDistance <= 3 ? " (did you mean '" + best + "'?)" : "";
  }

  private static int editDistance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
