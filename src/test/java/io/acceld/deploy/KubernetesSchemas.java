package io.acceld.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Kubernetes JSON schemas that fabric8's model jars ship ({@code
 * schema/validation-schema.json}, generated from the k8s.io/api Go types), made strict the way
 * kubectl and kubeconform's "strict" flavour are: an object's unknown fields are errors. Three
 * things fabric8 models as Java types are put back as the API defines them: a Quantity is a string
 * or a number, an IntOrString an integer or a string, and apiVersion/kind must be the resource's
 * own.
 */
final class KubernetesSchemas {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A kind's schema and the definitions of the file it came from (the jars name types apart). */
  private record Resource(ObjectNode schema, ObjectNode definitions) {}

  private final Map<String, Resource> resources = new HashMap<>();
  private final Map<String, JsonSchema> compiled = new HashMap<>();

  private KubernetesSchemas() {}

  static KubernetesSchemas load() {
    KubernetesSchemas schemas = new KubernetesSchemas();
    try {
      List<URL> files =
          Collections.list(
              KubernetesSchemas.class
                  .getClassLoader()
                  .getResources("schema/validation-schema.json"));
      if (files.isEmpty()) {
        throw new IllegalStateException("no schema/validation-schema.json on the test class path");
      }
      for (URL file : files) {
        try (InputStream in = file.openStream()) {
          schemas.add((ObjectNode) JSON.readTree(in));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return schemas;
  }

  private void add(ObjectNode file) {
    ObjectNode definitions = JsonNodeFactory.instance.objectNode();
    file.get("definitions")
        .fields()
        .forEachRemaining(
            e -> {
              String name = e.getKey();
              if (name.endsWith("_Quantity")) {
                definitions.set(name, quantity());
              } else if (name.endsWith("_IntOrString")) {
                definitions.set(name, intOrString());
              } else {
                definitions.set(name, strict(e.getValue()));
              }
            });
    file.get("resources")
        .fields()
        .forEachRemaining(
            e ->
                resources.putIfAbsent(
                    e.getKey(), new Resource((ObjectNode) strict(e.getValue()), definitions)));
  }

  /** The kinds there is a schema for, lower case. */
  Set<String> kinds() {
    return new TreeSet<>(resources.keySet());
  }

  /** Every way {@code manifest} breaks its kind's schema; empty when it is valid. */
  List<String> validate(JsonNode manifest) {
    String kind = manifest.path("kind").asText("");
    JsonSchema schema =
        compiled.computeIfAbsent(kind.toLowerCase(java.util.Locale.ROOT), this::compile);
    if (schema == null) {
      return List.of("no Kubernetes schema for kind '" + kind + "'");
    }
    List<String> errors = new ArrayList<>();
    for (ValidationMessage m : schema.validate(manifest)) {
      errors.add(m.getMessage());
    }
    return errors;
  }

  private JsonSchema compile(String kind) {
    Resource resource = resources.get(kind);
    if (resource == null) {
      return null;
    }
    ObjectNode schema = resource.schema().deepCopy();
    ObjectNode properties = (ObjectNode) schema.get("properties");
    ArrayNode required = schema.putArray("required");
    for (String identity : List.of("apiVersion", "kind")) {
      ObjectNode field = (ObjectNode) properties.get(identity);
      field.set("const", field.get("default"));
      required.add(identity);
    }
    schema.put("$schema", "http://json-schema.org/draft-07/schema#");
    schema.set("definitions", resource.definitions());
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(schema);
  }

  /**
   * Drops fabric8's Java-generation keywords and draft-3 {@code required: true}, and closes objects
   * that declare their properties.
   */
  private static JsonNode strict(JsonNode node) {
    if (node.isArray()) {
      ArrayNode copy = JsonNodeFactory.instance.arrayNode();
      node.forEach(item -> copy.add(strict(item)));
      return copy;
    }
    if (!node.isObject()) {
      return node;
    }
    ObjectNode copy = JsonNodeFactory.instance.objectNode();
    for (Iterator<Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Entry<String, JsonNode> e = it.next();
      String key = e.getKey();
      if (key.startsWith("java") || key.equals("existingJavaType")) {
        continue;
      }
      if (key.equals("required") && e.getValue().isBoolean()) {
        continue;
      }
      // A property map is a map of names to schemas, not a schema: keep its keys as they are.
      copy.set(key, key.equals("properties") ? strictEach(e.getValue()) : strict(e.getValue()));
    }
    JsonNode additional = copy.get("additionalProperties");
    if (copy.has("properties") && (additional == null || additional.asBoolean(false))) {
      copy.put("additionalProperties", false);
    }
    return copy;
  }

  private static JsonNode strictEach(JsonNode properties) {
    ObjectNode copy = JsonNodeFactory.instance.objectNode();
    properties.fields().forEachRemaining(e -> copy.set(e.getKey(), strict(e.getValue())));
    return copy;
  }

  private static ObjectNode quantity() {
    ObjectNode schema = JsonNodeFactory.instance.objectNode();
    ArrayNode oneOf = schema.putArray("oneOf");
    oneOf
        .addObject()
        .put("type", "string")
        // resource.Quantity's serialised form: a signed decimal with an optional suffix.
        .put(
            "pattern",
            "^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+|[numkMGTPE]|[KMGTPE]i)?$");
    oneOf.addObject().put("type", "number");
    return schema;
  }

  private static ObjectNode intOrString() {
    ObjectNode schema = JsonNodeFactory.instance.objectNode();
    schema.putArray("type").add("integer").add("string");
    return schema;
  }
}
