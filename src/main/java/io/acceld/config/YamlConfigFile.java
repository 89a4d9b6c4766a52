package io.acceld.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
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
  /** The largest config file accepted. */
  static final int MAX_BYTES = 1 << 20;

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
    try {
      String text = utf8(path, boundedBytes(path));
      // compose() keeps line numbers; duplicate keys are refused by entries() below.
      root = new Yaml(new LoaderOptions()).compose(new StringReader(text));
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

  /**
   * The file's bytes, refusing more than {@link #MAX_BYTES}: a config file is a few kilobytes, and
   * a huge one would take the YAML parser seconds to accept or refuse. Read with a limit rather
   * than trusting the file's size, which a pipe or procfs file does not report.
   */
  private static byte[] boundedBytes(Path path) throws IOException {
    try (InputStream in = Files.newInputStream(path)) {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (bytes.length > MAX_BYTES) {
        throw new ConfigException(
            "config file "
                + path
                + " is larger than "
                + (MAX_BYTES >> 20)
                + " MiB; is it the"
                + " right file?");
      }
      return bytes;
    }
  }

  /** {@code bytes} as UTF-8, or an error naming the line of the first byte that is not UTF-8. */
  private static String utf8(Path path, byte[] bytes) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult result = decoder.decode(in, out, true);
    if (result.isError()) {
      int offset = in.position();
      int line = 1;
      for (int i = 0; i < offset; i++) {
        if (bytes[i] == '\n') {
          line++;
        }
      }
      throw new ConfigException(
          "config file "
              + path
              + ", line "
              + line
              + ": byte "
              + String.format("0x%02x", bytes[offset] & 0xff)
              + " is not UTF-8; save the file as UTF-8");
    }
    decoder.flush(out);
    return out.flip().toString();
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
