package io.acceld.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.config.Setting;
import io.acceld.config.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Generates the chart's {@code config:} values and their JSON schema from the settings table, so
 * the chart has a value for every setting and never drifts from it. HelmChartTest compares; run
 * {@code ./mvnw -B -q test -Dtest=HelmChartTest -Dacceld.regenerate=true} to rewrite both files.
 */
final class HelmValues {
  static final Path CHART = Path.of("deploy/helm/acceld");
  static final Path VALUES = CHART.resolve("values.yaml");
  static final Path SCHEMA = CHART.resolve("values.schema.json");
  static final String BEGIN =
      "  # BEGIN generated from io.acceld.config.Settings: do not edit by hand";
  static final String END = "  # END generated";

  /**
   * Where the chart's container differs from a host install: the host's trees and driver are
   * mounted under /host (templates/daemonset.yaml mounts exactly these).
   */
  static final Map<String, String> CONTAINER_DEFAULTS =
      Map.of(
          "sysfs-root", "/host/sys",
          "dev-root", "/host/dev",
          "nvml-library", "/host/driver/libnvidia-ml.so.1");

  private HelmValues() {}

  /** The lines between BEGIN and END in values.yaml. */
  static List<String> configBlock() {
    List<String> lines = new ArrayList<>();
    for (Setting<?> s : Settings.ALL) {
      lines.add("  # " + s.description());
      lines.add("  # " + s.flag() + " / " + s.envVar() + "; agent default: " + s.defaultShown());
      String value =
          CONTAINER_DEFAULTS.getOrDefault(s.key(), s.defaultText() == null ? "" : s.defaultText());
      lines.add("  " + s.key() + ": " + yamlScalar(s, value));
    }
    return lines;
  }

  private static String yamlScalar(Setting<?> s, String value) {
    if (s.isSwitch()) {
      return value;
    }
    return "'" + value.replace("'", "''") + "'";
  }

  /** The JSON schema of {@code config}: every setting, nothing else. */
  static ObjectNode configSchema() {
    ObjectNode schema = JsonNodeFactory.instance.objectNode();
    schema.put("type", "object");
    schema.put(
        "description", "Agent settings (YAML keys of config.yaml); empty strings are left out");
    schema.put("additionalProperties", false);
    ObjectNode properties = schema.putObject("properties");
    for (Setting<?> s : Settings.ALL) {
      ObjectNode p = properties.putObject(s.key());
      p.put("description", s.description());
      if (s.isSwitch()) {
        p.put("type", "boolean");
      } else {
        p.put("type", "string");
        choices(s).ifPresent(c -> c.forEach(p.putArray("enum")::add));
      }
    }
    return schema;
  }

  /** The words a choice setting accepts, read off its parser's own error message. */
  private static Optional<List<String>> choices(Setting<?> s) {
    try {
      s.parser().parse("\u0000");
    } catch (RuntimeException e) {
      String prefix = "expects one of ";
      String message = String.valueOf(e.getMessage());
      if (message.startsWith(prefix)) {
        String list = message.substring(prefix.length(), message.indexOf(", got '"));
        return Optional.of(Arrays.asList(list.split(", ")));
      }
    }
    return Optional.empty();
  }

  static String regeneratedValues(String current) {
    List<String> lines = new ArrayList<>(current.lines().toList());
    int begin = lines.indexOf(BEGIN);
    int end = lines.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IllegalStateException(VALUES + " lacks the generated-block markers");
    }
    List<String> out = new ArrayList<>(lines.subList(0, begin + 1));
    out.addAll(configBlock());
    out.addAll(lines.subList(end, lines.size()));
    return String.join("\n", out) + "\n";
  }

  static String regeneratedSchema(String current) throws Exception {
    ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode schema = (ObjectNode) json.readTree(current);
    ((ObjectNode) schema.get("properties")).set("config", configSchema());
    return json.writeValueAsString(schema) + "\n";
  }

  static void regenerate() throws Exception {
    Files.writeString(VALUES, regeneratedValues(Files.readString(VALUES)));
    Files.writeString(SCHEMA, regeneratedSchema(Files.readString(SCHEMA)));
  }
}
