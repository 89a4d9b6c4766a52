package io.acceld.mesos.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Mesos's JSON mapping for its protobufs, which is stout's ({@code
 * apache/mesos:3rdparty/stout/include/stout/protobuf.hpp}), not proto3's canonical JSON. Clients
 * are written against what Mesos itself prints and accepts, so the rules are stout's:
 *
 * <ul>
 *   <li>fields by their proto (snake_case) names; unknown keys, camelCase ones included, are
 *       ignored; {@code null} means unset; a missing required field is an error;
 *   <li>enums by name; an unknown name leaves an optional or repeated field unset and is an error
 *       in a required one;
 *   <li>bytes as standard base64 with padding;
 *   <li>every integer kind from a JSON number or a numeric string, 64-bit ones printed as JSON
 *       numbers (protobuf-java-util's JsonFormat prints them as strings, which Mesos clients do not
 *       parse); doubles and floats also from {@code "Infinity"} and {@code "-Infinity"};
 *   <li>maps as JSON objects;
 *   <li>printing writes every set field plus each unset field that has an explicit, non-deprecated
 *       {@code [default = ...]} (so {@code Filters.refuse_seconds} appears as 5), compact and
 *       ASCII-safe (anything else escaped as {@code \\uXXXX}), because clients split streams on
 *       bytes and some decode them as ASCII.
 * </ul>
 *
 * <p>Driven by the message descriptors, so it covers every Mesos message without per-type code.
 */
public final class MesosJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER =
      new ObjectMapper(JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build())
          // "{...} garbage" is not one JSON document, as it is not for stout
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);
  private static final Pattern DECIMAL =
      Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

  private MesosJson() {}

  // ---- printing ----

  /** {@code message} as compact, ASCII-only JSON text. */
  public static String print(MessageOrBuilder message) {
    try {
      return MAPPER.writeValueAsString(toTree(message));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a JSON tree we built", e);
    }
  }

  /** {@link #print} as bytes (ASCII, hence also UTF-8), as an event stream writes them. */
  public static byte[] printBytes(MessageOrBuilder message) {
    return print(message).getBytes(StandardCharsets.US_ASCII);
  }

  /** {@code message} as a Jackson tree, for callers that embed it in a larger document. */
  public static ObjectNode toTree(MessageOrBuilder message) {
    ObjectNode object = NODES.objectNode();
    for (FieldDescriptor field : message.getDescriptorForType().getFields()) {
      if (field.isMapField()) {
        if (message.getRepeatedFieldCount(field) > 0) {
          object.set(field.getName(), printMap(message, field));
        }
      } else if (field.isRepeated()) {
        int count = message.getRepeatedFieldCount(field);
        if (count > 0) {
          ArrayNode array = object.putArray(field.getName());
          for (int i = 0; i < count; i++) {
            array.add(printValue(field, message.getRepeatedField(field, i)));
          }
        }
      } else if (message.hasField(field) || printsDefault(field)) {
        object.set(field.getName(), printValue(field, message.getField(field)));
      }
    }
    return object;
  }

  /** stout prints an unset field's default when the proto spells one out and has not retired it. */
  private static boolean printsDefault(FieldDescriptor field) {
    return field.hasDefaultValue() && !field.getOptions().getDeprecated();
  }

  private static ObjectNode printMap(MessageOrBuilder message, FieldDescriptor field) {
    Descriptor entryType = field.getMessageType();
    FieldDescriptor keyField = entryType.findFieldByNumber(1);
    FieldDescriptor valueField = entryType.findFieldByNumber(2);
    ObjectNode object = NODES.objectNode();
    int count = message.getRepeatedFieldCount(field);
    for (int i = 0; i < count; i++) {
      Message entry = (Message) message.getRepeatedField(field, i);
      String key = printValue(keyField, entry.getField(keyField)).asText();
      object.set(key, printValue(valueField, entry.getField(valueField)));
    }
    return object;
  }

  private static JsonNode printValue(FieldDescriptor field, Object value) {
    return switch (field.getType()) {
      case MESSAGE, GROUP -> toTree((MessageOrBuilder) value);
      case ENUM -> NODES.textNode(((EnumValueDescriptor) value).getName());
      case STRING -> NODES.textNode((String) value);
      case BYTES ->
          NODES.textNode(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
      case BOOL -> NODES.booleanNode((Boolean) value);
      case INT32, SINT32, SFIXED32 -> NODES.numberNode((Integer) value);
      case UINT32, FIXED32 -> NODES.numberNode(Integer.toUnsignedLong((Integer) value));
      case INT64, SINT64, SFIXED64 -> NODES.numberNode((Long) value);
      case UINT64, FIXED64 -> printUnsigned((Long) value);
      case DOUBLE -> printDouble((Double) value);
      case FLOAT -> printDouble(((Float) value).doubleValue());
    };
  }

  private static JsonNode printUnsigned(long value) {
    return value >= 0
        ? NODES.numberNode(value)
        : NODES.numberNode(BigInteger.valueOf(value).add(TWO_TO_64));
  }

  /** JSON has no infinities: they are written as the strings the parser takes back. */
  private static JsonNode printDouble(double value) {
    if (Double.isInfinite(value)) {
      return NODES.textNode(value > 0 ? "Infinity" : "-Infinity");
    }
    if (Double.isNaN(value)) {
      return NODES.textNode("NaN");
    }
    return NODES.numberNode(value);
  }

  // ---- parsing ----

  /** Parses JSON text; a syntax error is reported as a {@link JsonProcessingException}. */
  public static JsonNode readTree(byte[] json) throws IOException {
    return MAPPER.readTree(json);
  }

  /** {@code json} as a message of {@code prototype}'s type. */
  @SuppressWarnings("unchecked")
  public static <T extends Message> T parse(JsonNode json, T prototype) throws MesosJsonException {
    if (json == null || !json.isObject()) {
      throw new MesosJsonException(
          "Expecting a JSON object, got " + (json == null ? "nothing" : kind(json)));
    }
    Message.Builder builder = prototype.newBuilderForType();
    parseObject(json, builder);
    if (!builder.isInitialized()) {
      throw new MesosJsonException(
          "Missing required fields: " + String.join(", ", builder.findInitializationErrors()));
    }
    return (T) builder.build();
  }

  /** {@code json} text as a message of {@code prototype}'s type. */
  public static <T extends Message> T parse(String json, T prototype) throws MesosJsonException {
    JsonNode tree;
    try {
      tree = readTree(json.getBytes(StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      throw new MesosJsonException(e.getOriginalMessage());
    } catch (IOException e) {
      throw new MesosJsonException(e.getMessage());
    }
    return parse(tree, prototype);
  }

  private static void parseObject(JsonNode object, Message.Builder builder)
      throws MesosJsonException {
    Descriptor type = builder.getDescriptorForType();
    Iterator<Map.Entry<String, JsonNode>> entries = object.fields();
    while (entries.hasNext()) {
      Map.Entry<String, JsonNode> entry = entries.next();
      FieldDescriptor field = type.findFieldByName(entry.getKey());
      JsonNode value = entry.getValue();
      if (field == null || value.isNull()) {
        continue; // stout ignores unknown keys; null is "unset"
      }
      if (field.isMapField()) {
        parseMap(field, value, builder);
      } else if (field.isRepeated()) {
        if (!value.isArray()) {
          throw notExpecting(value, field);
        }
        for (JsonNode element : value) {
          Object parsed = parseValue(field, element, builder);
          if (parsed != null) {
            builder.addRepeatedField(field, parsed);
          }
        }
      } else {
        Object parsed = parseValue(field, value, builder);
        if (parsed != null) {
          builder.setField(field, parsed);
        }
      }
    }
  }

  private static void parseMap(FieldDescriptor field, JsonNode value, Message.Builder builder)
      throws MesosJsonException {
    if (!value.isObject()) {
      throw notExpecting(value, field);
    }
    Descriptor entryType = field.getMessageType();
    FieldDescriptor keyField = entryType.findFieldByNumber(1);
    FieldDescriptor valueField = entryType.findFieldByNumber(2);
    Iterator<Map.Entry<String, JsonNode>> entries = value.fields();
    while (entries.hasNext()) {
      Map.Entry<String, JsonNode> pair = entries.next();
      Message.Builder entry = builder.newBuilderForField(field);
      Object key = parseValue(keyField, NODES.textNode(pair.getKey()), entry);
      Object mapped =
          pair.getValue().isNull() ? null : parseValue(valueField, pair.getValue(), entry);
      if (key != null) {
        entry.setField(keyField, key);
      }
      if (mapped != null) {
        entry.setField(valueField, mapped);
      }
      builder.addRepeatedField(field, entry.buildPartial());
    }
  }

  /** The field's value from {@code node}; null for an unknown enum name that may be left unset. */
  private static Object parseValue(FieldDescriptor field, JsonNode node, Message.Builder parent)
      throws MesosJsonException {
    switch (field.getType()) {
      case MESSAGE, GROUP -> {
        if (!node.isObject()) {
          throw notExpecting(node, field);
        }
        Message.Builder child = parent.newBuilderForField(field);
        parseObject(node, child);
        return child.buildPartial();
      }
      case ENUM -> {
        if (!node.isTextual()) {
          throw notExpecting(node, field);
        }
        EnumValueDescriptor value = field.getEnumType().findValueByName(node.asText());
        if (value == null && field.isRequired()) {
          throw new MesosJsonException(
              "Failed to find enum for '" + node.asText() + "' in field '" + field.getName() + "'");
        }
        return value;
      }
      case STRING -> {
        if (!node.isTextual()) {
          throw notExpecting(node, field);
        }
        return node.asText();
      }
      case BYTES -> {
        if (!node.isTextual()) {
          throw notExpecting(node, field);
        }
        try {
          return ByteString.copyFrom(Base64.getDecoder().decode(node.asText()));
        } catch (IllegalArgumentException e) {
          throw new MesosJsonException(
              "Failed to base64-decode field '" + field.getName() + "': " + e.getMessage());
        }
      }
      case BOOL -> {
        if (node.isBoolean()) {
          return node.booleanValue();
        }
        if (node.isTextual() && (node.asText().equals("true") || node.asText().equals("false"))) {
          return Boolean.parseBoolean(node.asText());
        }
        throw notExpecting(node, field);
      }
      case INT32, SINT32, SFIXED32 -> {
        return integer(
                field,
                node,
                BigInteger.valueOf(Integer.MIN_VALUE),
                BigInteger.valueOf(Integer.MAX_VALUE))
            .intValue();
      }
      case UINT32, FIXED32 -> {
        return integer(
                field, node, BigInteger.ZERO, BigInteger.ONE.shiftLeft(32).subtract(BigInteger.ONE))
            .intValue(); // the low 32 bits: how Java holds a uint32
      }
      case INT64, SINT64, SFIXED64 -> {
        return integer(
                field, node, BigInteger.valueOf(Long.MIN_VALUE), BigInteger.valueOf(Long.MAX_VALUE))
            .longValue();
      }
      case UINT64, FIXED64 -> {
        return integer(field, node, BigInteger.ZERO, TWO_TO_64.subtract(BigInteger.ONE))
            .longValue();
      }
      case DOUBLE -> {
        return floating(field, node);
      }
      case FLOAT -> {
        return (float) floating(field, node);
      }
    }
    throw new MesosJsonException("Unsupported type of field '" + field.getName() + "'");
  }

  private static BigInteger integer(
      FieldDescriptor field, JsonNode node, BigInteger min, BigInteger max)
      throws MesosJsonException {
    BigInteger value;
    try {
      if (node.isIntegralNumber()) {
        value = node.bigIntegerValue();
      } else if (node.isNumber()) {
        if (!Double.isFinite(node.doubleValue())) {
          throw outOfRange(node.asText(), field);
        }
        value = exactInteger(node.decimalValue(), field);
      } else if (node.isTextual() && DECIMAL.matcher(node.asText()).matches()) {
        value = exactInteger(new BigDecimal(node.asText()), field);
      } else {
        throw notExpecting(node, field);
      }
    } catch (ArithmeticException e) {
      throw new MesosJsonException(
          "Failed to convert " + node + " to an integer for field '" + field.getName() + "'");
    }
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw outOfRange(value.toString(), field);
    }
    return value;
  }

  /**
   * {@code decimal} as an integer, checking its size first: {@link BigDecimal#toBigIntegerExact}
   * would compute ten to the exponent, minutes of CPU for a client's {@code "1e999999999"}.
   */
  private static BigInteger exactInteger(BigDecimal decimal, FieldDescriptor field)
      throws MesosJsonException {
    BigDecimal stripped = decimal.stripTrailingZeros();
    if (stripped.signum() == 0) {
      return BigInteger.ZERO;
    }
    if (stripped.scale() > 0) {
      throw new ArithmeticException("not an integer"); // a fraction, reported as such by the caller
    }
    // every integer field fits in 20 decimal digits
    if (stripped.precision() - stripped.scale() > 20) {
      throw outOfRange(decimal.toString(), field);
    }
    return stripped.toBigIntegerExact();
  }

  private static MesosJsonException outOfRange(String value, FieldDescriptor field) {
    return new MesosJsonException(
        "Value " + value + " is out of range for field '" + field.getName() + "'");
  }

  private static double floating(FieldDescriptor field, JsonNode node) throws MesosJsonException {
    if (node.isNumber()) {
      return node.doubleValue();
    }
    if (node.isTextual()) {
      String text = node.asText();
      if (text.equals("Infinity")) {
        return Double.POSITIVE_INFINITY;
      }
      if (text.equals("-Infinity")) {
        return Double.NEGATIVE_INFINITY;
      }
      if (DECIMAL.matcher(text).matches()) {
        return Double.parseDouble(text);
      }
    }
    throw notExpecting(node, field);
  }

  private static MesosJsonException notExpecting(JsonNode node, FieldDescriptor field) {
    return new MesosJsonException(
        "Not expecting a JSON " + kind(node) + " for field '" + field.getName() + "'");
  }

  private static String kind(JsonNode node) {
    return switch (node.getNodeType()) {
      case ARRAY -> "array";
      case OBJECT, POJO -> "object";
      case STRING -> "string";
      case NUMBER -> "number";
      case BOOLEAN -> "boolean";
      case NULL -> "null";
      default -> node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    };
  }
}
