package io.acceld.util;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * JSON read into jackson-databind's tree nodes ({@link JsonNode}) and written from them on
 * Jackson's streaming layer, without an {@code ObjectMapper}.
 *
 * <p>The DRA side works on API objects as trees; the nodes are a few dozen small classes, but the
 * mapper that databind reads and writes them with is ~300 (its serializer and deserializer
 * factories, type resolution, introspection) and caches kept for the agent's lifetime once made.
 * The trees are the same ones the mapper makes, with its defaults: integers as {@code IntNode},
 * {@code LongNode} or {@code BigIntegerNode} by size, other numbers as {@code DoubleNode}, a
 * repeated key's last value kept. Stricter in one way: anything after the document is an error,
 * where the mapper ignored it. {@link JsonNode#toString()} must not be used on the agent's paths
 * either: it, too, makes a mapper; use {@link #render}.
 */
public final class JsonNodes {
  /** Deeper than any API object; a deeper document is refused before it can use the stack. */
  static final int MAX_DEPTH = 128;

  private static final JsonFactory FACTORY = new JsonFactory();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private JsonNodes() {}

  /** A new, empty object. */
  public static ObjectNode object() {
    return NODES.objectNode();
  }

  /**
   * The document in {@code json}; {@link MissingNode} when there is none (empty or blank input).
   *
   * @throws IOException when it is not one JSON document, or nests deeper than {@link #MAX_DEPTH}
   */
  public static JsonNode parse(byte[] json) throws IOException {
    try (JsonParser p = FACTORY.createParser(json)) {
      return parse(p);
    }
  }

  /** As {@link #parse(byte[])}, from a parser of any format Jackson reads (YAML too). */
  public static JsonNode parse(JsonParser p) throws IOException {
    JsonToken first = p.nextToken();
    if (first == null) {
      return MissingNode.getInstance();
    }
    JsonNode root = value(p, first, 1);
    JsonToken after = p.nextToken();
    if (after != null) {
      throw new JsonParseException(p, "more content after the document: " + after);
    }
    return root;
  }

  private static JsonNode value(JsonParser p, JsonToken t, int depth) throws IOException {
    switch (t) {
      case START_OBJECT -> {
        checkDepth(p, depth);
        ObjectNode object = NODES.objectNode();
        for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
          String name = p.currentName();
          object.set(name, value(p, p.nextToken(), depth + 1));
        }
        return object;
      }
      case START_ARRAY -> {
        checkDepth(p, depth);
        ArrayNode array = NODES.arrayNode();
        for (JsonToken v = p.nextToken(); v != JsonToken.END_ARRAY; v = p.nextToken()) {
          array.add(value(p, v, depth + 1));
        }
        return array;
      }
      case VALUE_STRING -> {
        return NODES.textNode(p.getText());
      }
      case VALUE_NUMBER_INT -> {
        return switch (p.getNumberType()) {
          case INT -> NODES.numberNode(p.getIntValue());
          case LONG -> NODES.numberNode(p.getLongValue());
          default -> NODES.numberNode(p.getBigIntegerValue());
        };
      }
      case VALUE_NUMBER_FLOAT -> {
        return NODES.numberNode(p.getDoubleValue());
      }
      case VALUE_TRUE -> {
        return NODES.booleanNode(true);
      }
      case VALUE_FALSE -> {
        return NODES.booleanNode(false);
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> throw new JsonParseException(p, "not a JSON value: " + t);
    }
  }

  private static void checkDepth(JsonParser p, int depth) throws JsonParseException {
    if (depth > MAX_DEPTH) {
      throw new JsonParseException(p, "nested deeper than " + MAX_DEPTH + " levels");
    }
  }

  /** The compact UTF-8 JSON of {@code node}, as the mapper wrote it. */
  public static byte[] render(JsonNode node) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      write(g, node);
    } catch (IOException e) {
      throw new UncheckedIOException("writing JSON to memory failed", e);
    }
    return out.toByteArray();
  }

  private static void write(JsonGenerator g, JsonNode node) throws IOException {
    switch (node.getNodeType()) {
      case OBJECT -> {
        g.writeStartObject();
        for (Map.Entry<String, JsonNode> field : node.properties()) {
          g.writeFieldName(field.getKey());
          write(g, field.getValue());
        }
        g.writeEndObject();
      }
      case ARRAY -> {
        g.writeStartArray();
        for (JsonNode item : node) {
          write(g, item);
        }
        g.writeEndArray();
      }
      case STRING -> g.writeString(node.textValue());
      case NUMBER -> {
        switch (node.numberType()) {
          case INT -> g.writeNumber(node.intValue());
          case LONG -> g.writeNumber(node.longValue());
          case BIG_INTEGER -> g.writeNumber(node.bigIntegerValue());
          case FLOAT -> g.writeNumber(node.floatValue());
          case BIG_DECIMAL -> g.writeNumber(node.decimalValue());
          default -> g.writeNumber(node.doubleValue());
        }
      }
      case BOOLEAN -> g.writeBoolean(node.booleanValue());
      case BINARY -> g.writeBinary(node.binaryValue());
      case NULL, MISSING -> g.writeNull();
      default ->
          throw new IllegalArgumentException(
              "a " + node.getNodeType() + " node has no JSON form of its own");
    }
  }
}
