package io.acceld.doctor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import io.acceld.kubelet.CdiSpecWriter;
import io.acceld.testing.TestDevices;
import io.acceld.util.JsonTrees;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Doctor's CDI rules, written out so the agent ships no schema engine, held to the CDI project's
 * schema itself: the same verdict on the specs the agent writes, on a spec using every part of the
 * schema, and on every mutation of it (each key removed, each value replaced by every JSON type).
 */
class CdiSchemaTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  @TempDir Path dir;

  static JsonSchema schema() {
    Path schema =
        Path.of(System.getProperty("acceld.sharedReference", "../shared/reference"))
            .resolve("cdi-schema/schema.json")
            .toAbsolutePath()
            .normalize();
    assumeTrue(Files.isRegularFile(schema), "the CDI schema is not at " + schema);
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7)
        .getSchema(SchemaLocation.of(schema.toUri().toString()));
  }

  private static List<String> ours(JsonNode spec) throws Exception {
    return CdiSchema.violations(JsonTrees.parse(JSON.writeValueAsBytes(spec)));
  }

  @Test
  void theSpecsTheAgentWritesPassBoth() throws Exception {
    CdiSpecWriter writer = new CdiSpecWriter(dir, Path.of("/dev"));
    writer.write("nvidia.com/gpu", List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 1)));
    JsonNode spec = JSON.readTree(writer.specFile("nvidia.com/gpu").toFile());

    assertThat(schema().validate(spec)).isEmpty();
    assertThat(ours(spec)).isEmpty();
    Object parsed = JsonTrees.parse(Files.readAllBytes(writer.specFile("nvidia.com/gpu")));
    assertThat(CdiSchema.runtimeViolations(parsed)).isEmpty();
  }

  @Test
  void everyMutationOfAFullSpecGetsTheSchemasVerdict() throws Exception {
    JsonSchema schema = schema();
    JsonNode full = JSON.readTree(FULL);
    assertThat(schema.validate(full)).isEmpty();
    assertThat(ours(full)).isEmpty();

    List<JsonNode> mutants = new ArrayList<>();
    mutate(full, full, mutants::add);
    assertThat(mutants).hasSizeGreaterThan(300);
    int refused = 0;
    for (JsonNode mutant : mutants) {
      boolean schemaAccepts = schema.validate(mutant).isEmpty();
      List<String> violations = ours(mutant);
      assertThat(violations.isEmpty())
          .as("%s\nschema: %s\nours: %s", mutant, schema.validate(mutant), violations)
          .isEqualTo(schemaAccepts);
      refused += schemaAccepts ? 0 : 1;
    }
    assertThat(refused).as("mutations the schema refuses").isGreaterThan(100);
  }

  @Test
  void namesAndKindsARuntimeRefusesAreCaughtBeyondTheSchema() throws Exception {
    String spec =
        "{\"cdiVersion\":\"0.6.0\",\"kind\":\"nvidia.com\",\"devices\":["
            + "{\"name\":\"gpu 0\",\"containerEdits\":{}},{\"name\":\"a\",\"containerEdits\":{}},"
            + "{\"name\":\"a\",\"containerEdits\":{}}],\"containerEdits\":{\"deviceNodes\":[{}]}}";

    assertThat(CdiSchema.runtimeViolations(JsonTrees.parse(spec.getBytes(StandardCharsets.UTF_8))))
        .containsExactly(
            "/containerEdits/deviceNodes/0 has no path",
            "/kind nvidia.com is not vendor/class",
            "device name gpu 0 has characters CDI does not allow",
            "device name a appears twice");
  }

  /** Every single-point change of {@code node}, each applied to a fresh copy of {@code root}. */
  private static void mutate(JsonNode root, JsonNode node, Consumer<JsonNode> out) {
    List<JsonNode> replacements =
        List.of(
            F.textNode("x"),
            F.numberNode(7),
            F.numberNode(-1),
            F.numberNode(4294967296L),
            F.numberNode(1.5),
            F.booleanNode(true),
            F.nullNode(),
            F.objectNode(),
            F.arrayNode());
    if (node instanceof ObjectNode object) {
      for (String key : iterable(object)) {
        out.accept(copyWith(root, node, c -> ((ObjectNode) c).remove(key)));
        for (JsonNode r : replacements) {
          out.accept(copyWith(root, node, c -> ((ObjectNode) c).set(key, r.deepCopy())));
        }
        mutate(root, object.get(key), out);
      }
    } else if (node instanceof ArrayNode array) {
      for (int i = 0; i < array.size(); i++) {
        int index = i;
        for (JsonNode r : replacements) {
          out.accept(copyWith(root, node, c -> ((ArrayNode) c).set(index, r.deepCopy())));
        }
        mutate(root, array.get(i), out);
      }
    }
  }

  private static List<String> iterable(ObjectNode object) {
    List<String> keys = new ArrayList<>();
    object.fieldNames().forEachRemaining(keys::add);
    return keys;
  }

  /** A copy of {@code root} with {@code change} applied to the copy of {@code target}. */
  private static JsonNode copyWith(JsonNode root, JsonNode target, Consumer<JsonNode> change) {
    JsonNode copy = root.deepCopy();
    change.accept(find(root, target, copy));
    return copy;
  }

  private static JsonNode find(JsonNode original, JsonNode target, JsonNode copy) {
    if (original == target) {
      return copy;
    }
    if (original instanceof ObjectNode o) {
      for (String key : iterable(o)) {
        JsonNode found = find(o.get(key), target, copy.get(key));
        if (found != null) {
          return found;
        }
      }
    } else if (original instanceof ArrayNode a) {
      for (int i = 0; i < a.size(); i++) {
        JsonNode found = find(a.get(i), target, copy.get(i));
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }

  /** A spec that uses every part of the schema once. */
  private static final String FULL =
      """
      {
        "cdiVersion": "0.6.0",
        "kind": "example.com/gpu",
        "annotations": {"a": "b"},
        "devices": [
          {
            "name": "gpu0",
            "annotations": {"c": "d"},
            "containerEdits": {
              "env": ["A=1"],
              "deviceNodes": [
                {"path": "/dev/x", "hostPath": "/dev/x", "permissions": "rw", "type": "c",
                 "major": 195, "minor": 0, "uid": 0, "gid": 44}
              ],
              "mounts": [
                {"hostPath": "/h", "containerPath": "/c", "options": ["ro"], "type": "bind"}
              ],
              "hooks": [
                {"hookName": "createContainer", "path": "/bin/true", "args": ["true"],
                 "env": ["B=2"], "timeout": 5}
              ],
              "intelRdt": {"closID": "c", "l3CacheSchema": "L3:0=f", "memBwSchema": "MB:0=50",
                           "enableCMT": true, "enableMBM": false}
            }
          }
        ]
      }
      """;
}
