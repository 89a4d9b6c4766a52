package io.acceld.mesos.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
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
 *
 * <p>On Jackson's streaming layer alone: messages are written straight to a generator, and a body
 * is read into plain Java values (an object a {@code Map}, an array a {@code List}, a number a
 * {@code Long}, {@code BigInteger} or {@code Double}) before it is matched to the descriptor.
 * jackson-databind's object mapper would be some 300 more classes resident in every agent that runs
 * the bridge (about 4 MiB, measured in BENCHMARKS.md).
 */
public final class MesosJson {
  /** What a JSON {@code null} reads as, so that it differs from no document at all. */
  static final Object JSON_NULL =
      new Object() {
        @Override
        public String toString() {
          return "null";
        }
      };

  private static final JsonFactory FACTORY =
      JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();
  private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);
  private static final Pattern DECIMAL =
      Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

  private MesosJson() {}

  // ---- printing ----

  /** {@code message} as compact, ASCII-only JSON text. */
  public static String print(MessageOrBuilder message) {
    StringWriter out = new StringWriter(256);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      writeMessage(g, message);
    } catch (IOException e) {
      throw new UncheckedIOException("writing JSON to memory failed", e);
    }
    return out.toString();
  }

  /** {@link #print} as bytes (ASCII, hence also UTF-8), as an event stream writes them. */
  public static byte[] printBytes(MessageOrBuilder message) {
    return print(message).getBytes(StandardCharsets.US_ASCII);
  }

  private static void writeMessage(JsonGenerator g, MessageOrBuilder message) throws IOException {
    g.writeStartObject();
    for (FieldDescriptor field : message.getDescriptorForType().getFields()) {
      if (field.isMapField()) {
        if (message.getRepeatedFieldCount(field) > 0) {
          g.writeFieldName(field.getName());
          writeMap(g, message, field);
        }
      } else if (field.isRepeated()) {
        int count = message.getRepeatedFieldCount(field);
        if (count > 0) {
          g.writeFieldName(field.getName());
          g.writeStartArray();
          for (int i = 0; i < count; i++) {
            writeValue(g, field, message.getRepeatedField(field, i));
          }
          g.writeEndArray();
        }
      } else if (message.hasField(field) || printsDefault(field)) {
        g.writeFieldName(field.getName());
        writeValue(g, field, message.getField(field));
      }
    }
    g.writeEndObject();
  }

  /** stout prints an unset field's default when the proto spells one out and has not retired it. */
  private static boolean printsDefault(FieldDescriptor field) {
    return field.hasDefaultValue() && !field.getOptions().getDeprecated();
  }

  private static void writeMap(JsonGenerator g, MessageOrBuilder message, FieldDescriptor field)
      throws IOException {
    Descriptor entryType = field.getMessageType();
    FieldDescriptor keyField = entryType.findFieldByNumber(1);
    FieldDescriptor valueField = entryType.findFieldByNumber(2);
    // Keys are unique in a JSON object; a repeated key keeps its first place and its last value,
    // as a map field itself would.
    Map<String, Object> entries = new LinkedHashMap<>();
    int count = message.getRepeatedFieldCount(field);
    for (int i = 0; i < count; i++) {
      Message entry = (Message) message.getRepeatedField(field, i);
      entries.put(keyText(keyField, entry.getField(keyField)), entry.getField(valueField));
    }
    g.writeStartObject();
    for (Map.Entry<String, Object> e : entries.entrySet()) {
      g.writeFieldName(e.getKey());
      writeValue(g, valueField, e.getValue());
    }
    g.writeEndObject();
  }

  /** A map key (a string, integer or bool field) as the text of a JSON object's key. */
  private static String keyText(FieldDescriptor field, Object value) {
    return switch (field.getType()) {
      case UINT32, FIXED32 -> Long.toString(Integer.toUnsignedLong((Integer) value));
      case UINT64, FIXED64 -> Long.toUnsignedString((Long) value);
      case ENUM -> ((EnumValueDescriptor) value).getName();
      default -> String.valueOf(value);
    };
  }

  private static void writeValue(JsonGenerator g, FieldDescriptor field, Object value)
      throws IOException {
    switch (field.getType()) {
      case MESSAGE, GROUP -> writeMessage(g, (MessageOrBuilder) value);
      case ENUM -> g.writeString(((EnumValueDescriptor) value).getName());
      case STRING -> g.writeString((String) value);
      case BYTES ->
          g.writeString(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
      case BOOL -> g.writeBoolean((Boolean) value);
      case INT32, SINT32, SFIXED32 -> g.writeNumber((Integer) value);
      case UINT32, FIXED32 -> g.writeNumber(Integer.toUnsignedLong((Integer) value));
      case INT64, SINT64, SFIXED64 -> g.writeNumber((Long) value);
      case UINT64, FIXED64 -> {
        long v = (Long) value;
        if (v >= 0) {
          g.writeNumber(v);
        } else {
          g.writeNumber(BigInteger.valueOf(v).add(TWO_TO_64));
        }
      }
      case DOUBLE -> writeDouble(g, (Double) value);
      case FLOAT -> writeDouble(g, ((Float) value).doubleValue());
    }
  }

  /** JSON has no infinities: they are written as the strings the parser takes back. */
  private static void writeDouble(JsonGenerator g, double value) throws IOException {
    if (Double.isInfinite(value)) {
      g.writeString(value > 0 ? "Infinity" : "-Infinity");
    } else if (Double.isNaN(value)) {
      g.writeString("NaN");
    } else {
      g.writeNumber(value);
    }
  }

  // ---- parsing ----

  /**
   * The one JSON document in {@code json} as plain values (see the class comment; a JSON {@code
   * null} is {@link #JSON_NULL}), or null if there is none (empty or blank input).
   *
   * @throws JsonProcessingException for malformed JSON or anything after the document, with
   *     Jackson's description of what is wrong
   */
  static Object readTree(byte[] json) throws IOException {
    try (JsonParser p = FACTORY.createParser(json)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return null;
      }
      // A repeated key keeps its first place and takes the last value, as stout's parser does.
      Object value = read(p, first);
      JsonToken trailing = p.nextToken();
      if (trailing != null) {
        // "{...} garbage" is not one JSON document, as it is not for stout
        throw new JsonParseException(
            p, "Trailing token (of type " + trailing + ") found after value: not allowed");
      }
      return value;
    }
  }

  /**
   * The value that starts at {@code token}, read to its end: objects as insertion-ordered maps (a
   * repeated key keeps its first place and takes the last value), integers as {@code Long} or, past
   * a long, {@code BigInteger}, and a JSON {@code null} as {@link #JSON_NULL}.
   */
  private static Object read(JsonParser p, JsonToken token) throws IOException {
    if (token == null) {
      throw new JsonParseException(p, "unexpected end of input");
    }
    switch (token) {
      case START_OBJECT -> {
        Map<String, Object> map = new LinkedHashMap<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
          String key = p.currentName();
          map.put(key, read(p, p.nextToken()));
        }
        return map;
      }
      case START_ARRAY -> {
        List<Object> list = new ArrayList<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
          list.add(read(p, t));
        }
        return list;
      }
      case VALUE_STRING -> {
        return p.getText();
      }
      case VALUE_NUMBER_INT -> {
        return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
            ? p.getBigIntegerValue()
            : (Object) p.getLongValue();
      }
      case VALUE_NUMBER_FLOAT -> {
        return p.getDoubleValue();
      }
      case VALUE_TRUE -> {
        return Boolean.TRUE;
      }
      case VALUE_FALSE -> {
        return Boolean.FALSE;
      }
      case VALUE_NULL -> {
        return JSON_NULL;
      }
      default -> throw new JsonParseException(p, "unexpected " + token);
    }
  }

  /** {@code json}, as {@link #readTree} gives it, as a message of {@code prototype}'s type. */
  @SuppressWarnings("unchecked")
  public static <T extends Message> T parse(Object json, T prototype) throws MesosJsonException {
    if (!(json instanceof Map<?, ?> object)) {
      throw new MesosJsonException(
          "Expecting a JSON object, got " + (json == null ? "nothing" : kind(json)));
    }
    Message.Builder builder = prototype.newBuilderForType();
    parseObject(object, builder);
    if (!builder.isInitialized()) {
      throw new MesosJsonException(
          "Missing required fields: " + String.join(", ", builder.findInitializationErrors()));
    }
    return (T) builder.build();
  }

  /** {@code json} text as a message of {@code prototype}'s type. */
  public static <T extends Message> T parse(String json, T prototype) throws MesosJsonException {
    Object tree;
    try {
      tree = readTree(json.getBytes(StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      throw new MesosJsonException(e.getOriginalMessage());
    } catch (IOException e) {
      throw new MesosJsonException(e.getMessage());
    }
    return parse(tree, prototype);
  }

  private static void parseObject(Map<?, ?> object, Message.Builder builder)
      throws MesosJsonException {
    Descriptor type = builder.getDescriptorForType();
    for (Map.Entry<?, ?> entry : object.entrySet()) {
      FieldDescriptor field = type.findFieldByName((String) entry.getKey());
      Object value = entry.getValue();
      if (field == null || value == JSON_NULL) {
        continue; // stout ignores unknown keys; null is "unset"
      }
      if (field.isMapField()) {
        parseMap(field, value, builder);
      } else if (field.isRepeated()) {
        if (!(value instanceof List<?> list)) {
          throw notExpecting(value, field);
        }
        for (Object element : list) {
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

  private static void parseMap(FieldDescriptor field, Object value, Message.Builder builder)
      throws MesosJsonException {
    if (!(value instanceof Map<?, ?> object)) {
      throw notExpecting(value, field);
    }
    Descriptor entryType = field.getMessageType();
    FieldDescriptor keyField = entryType.findFieldByNumber(1);
    FieldDescriptor valueField = entryType.findFieldByNumber(2);
    for (Map.Entry<?, ?> pair : object.entrySet()) {
      Message.Builder entry = builder.newBuilderForField(field);
      Object key = parseValue(keyField, pair.getKey(), entry);
      Object mapped =
          pair.getValue() == JSON_NULL ? null : parseValue(valueField, pair.getValue(), entry);
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
  private static Object parseValue(FieldDescriptor field, Object node, Message.Builder parent)
      throws MesosJsonException {
    switch (field.getType()) {
      case MESSAGE, GROUP -> {
        if (!(node instanceof Map<?, ?> object)) {
          throw notExpecting(node, field);
        }
        Message.Builder child = parent.newBuilderForField(field);
        parseObject(object, child);
        return child.buildPartial();
      }
      case ENUM -> {
        if (!(node instanceof String name)) {
          throw notExpecting(node, field);
        }
        EnumValueDescriptor value = field.getEnumType().findValueByName(name);
        if (value == null && field.isRequired()) {
          throw new MesosJsonException(
              "Failed to find enum for '" + name + "' in field '" + field.getName() + "'");
        }
        return value;
      }
      case STRING -> {
        if (!(node instanceof String text)) {
          throw notExpecting(node, field);
        }
        return text;
      }
      case BYTES -> {
        if (!(node instanceof String text)) {
          throw notExpecting(node, field);
        }
        try {
          return ByteString.copyFrom(Base64.getDecoder().decode(text));
        } catch (IllegalArgumentException e) {
          throw new MesosJsonException(
              "Failed to base64-decode field '" + field.getName() + "': " + e.getMessage());
        }
      }
      case BOOL -> {
        if (node instanceof Boolean b) {
          return b;
        }
        if (node instanceof String text && (text.equals("true") || text.equals("false"))) {
          return Boolean.parseBoolean(text);
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
      FieldDescriptor field, Object node, BigInteger min, BigInteger max)
      throws MesosJsonException {
    BigInteger value;
    try {
      if (node instanceof Long l) {
        value = BigInteger.valueOf(l);
      } else if (node instanceof BigInteger b) {
        value = b;
      } else if (node instanceof Double d) {
        if (!Double.isFinite(d)) {
          throw outOfRange(String.valueOf(d), field);
        }
        value = exactInteger(BigDecimal.valueOf(d), field);
      } else if (node instanceof String text && DECIMAL.matcher(text).matches()) {
        value = exactInteger(new BigDecimal(text), field);
      } else {
        throw notExpecting(node, field);
      }
    } catch (ArithmeticException e) {
      throw new MesosJsonException(
          "Failed to convert "
              + display(node)
              + " to an integer for field '"
              + field.getName()
              + "'");
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

  private static double floating(FieldDescriptor field, Object node) throws MesosJsonException {
    if (node instanceof Number n) {
      return n.doubleValue();
    }
    if (node instanceof String text) {
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

  private static MesosJsonException notExpecting(Object node, FieldDescriptor field) {
    return new MesosJsonException(
        "Not expecting a JSON " + kind(node) + " for field '" + field.getName() + "'");
  }

  /** A value as JSON text for an error message: a string quoted and escaped, a number as is. */
  private static String display(Object node) {
    return node instanceof String text
        ? '"' + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + '"'
        : String.valueOf(node);
  }

  private static String kind(Object node) {
    if (node instanceof Map<?, ?>) {
      return "object";
    }
    if (node instanceof List<?>) {
      return "array";
    }
    if (node instanceof String) {
      return "string";
    }
    if (node instanceof Number) {
      return "number";
    }
    if (node instanceof Boolean) {
      return "boolean";
    }
    return "null";
  }
}
