package io.acceld.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * One YAML config file read as SnakeYAML nodes rather than Java objects, because nodes keep their
 * line numbers: every error this package reports about the file names the file, the line and the
 * key. Duplicate keys are refused here, since SnakeYAML would silently keep the last one.
 */
final class YamlConfigFile {
  private final Path path;
  private final List<NodeTuple> entries;

  private YamlConfigFile(Path path, List<NodeTuple> entries) {
    this.path = path;
    this.entries = entries;
  }

  /**
   * Reads and composes {@code path}.
   *
   * @throws ConfigException if it is missing, unreadable, not YAML, or not a mapping with unique
   *     plain keys at the top
   */
  static YamlConfigFile read(Path path) {
    Node root;
    try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      // compose() keeps line numbers; duplicate keys are refused by entries() below.
      root = new Yaml(new LoaderOptions()).compose(reader);
    } catch (NoSuchFileException e) {
      throw new ConfigException("config file " + path + " does not exist");
    } catch (MarkedYAMLException e) {
      int line = e.getProblemMark() == null ? 0 : e.getProblemMark().getLine() + 1;
      throw new ConfigException(
          "config file " + path + ", line " + line + ": YAML syntax error: " + e.getProblem());
    } catch (YAMLException e) {
      throw new ConfigException("config file " + path + ": YAML error: " + e.getMessage());
    } catch (IOException e) {
      throw new ConfigException("config file " + path + " cannot be read: " + e.getMessage(), e);
    }
    YamlConfigFile file = new YamlConfigFile(path, List.of());
    if (root == null) {
      return file;
    }
    if (!(root instanceof MappingNode mapping)) {
      throw file.error(
          root, null, "the file must be a mapping of settings, like 'sysfs-root: /sys'");
    }
    return new YamlConfigFile(path, file.entries(mapping));
  }

  /** The top-level entries, in file order; none for an empty file. */
  List<NodeTuple> entries() {
    return entries;
  }

  /**
   * The entries of {@code mapping}, in file order.
   *
   * @throws ConfigException if a key is not a plain scalar or appears twice
   */
  List<NodeTuple> entries(MappingNode mapping) {
    Map<String, Node> seen = new HashMap<>();
    for (NodeTuple tuple : mapping.getValue()) {
      if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
        throw error(tuple.getKeyNode(), null, "keys must be plain words");
      }
      if (seen.put(key.getValue(), key) != null) {
        throw error(key, key.getValue(), "the key appears twice");
      }
    }
    return mapping.getValue();
  }

  /** The key of an entry {@link #entries} returned, which is always a scalar. */
  static String key(NodeTuple entry) {
    return ((ScalarNode) entry.getKeyNode()).getValue();
  }

  /** {@code config file <path>, line <n>, key '<key>'}: where a value or a problem is. */
  String where(Node node, String key) {
    return "config file "
        + path
        + ", line "
        + line(node)
        + (key == null ? "" : ", key '" + key + "'");
  }

  /** A config error located at {@code node}; {@code key} may be null when no key applies. */
  ConfigException error(Node node, String key, String problem) {
    return new ConfigException(where(node, key) + ": " + problem);
  }

  /** How an error names what it found instead of what it expected. */
  static String kind(Node node) {
    return switch (node.getNodeId()) {
      case mapping -> "mapping";
      case sequence -> "list";
      default -> "value";
    };
  }

  private static int line(Node node) {
    return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
  }
}
