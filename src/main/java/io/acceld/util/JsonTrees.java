package io.acceld.util;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON documents as plain Java values, on Jackson's streaming layer alone: an object is a {@code
 * Map<String, ?>} (insertion-ordered when read), an array a {@code List<?>}, and the rest {@code
 * String}, {@code Long} or {@code Double}, {@code Boolean} and {@code null}.
 *
 * <p>The files the agent keeps on every node (the lease checkpoint, the CDI specs) use this rather
 * than jackson-databind, whose object mapper is ~300 classes and their caches, resident for the
 * agent's lifetime once touched, and archived with the agent's classes: with the AppCDS training
 * run no longer asking for {@code /devices}, steady RSS 85.3 to 81.0 MiB for two small documents.
 * databind stays for the Mesos bridge's wire types and {@code /devices}, which are loaded only
 * where they are used.
 */
public final class JsonTrees {
  /** Deeper than any document of ours; a deeper one is refused before it can use the stack. */
  static final int MAX_DEPTH = 32;

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
          .build();

  private JsonTrees() {}

  /**
   * The UTF-8 JSON of {@code value}; {@code indented} uses Jackson's default pretty printer (two
   * spaces, {@code " : "}), as databind's {@code INDENT_OUTPUT} did.
   *
   * @throws IllegalArgumentException if the tree holds anything but the types above, or a map key
   *     that is not a string
   */
  public static byte[] render(Object value, boolean indented) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      if (indented) {
        g.useDefaultPrettyPrinter();
      }
      write(g, value);
    } catch (IOException e) {
      throw new UncheckedIOException("writing JSON to memory failed", e);
    }
    return out.toByteArray();
  }

  private static void write(JsonGenerator g, Object value) throws IOException {
    if (value == null) {
      g.writeNull();
    } else if (value instanceof String s) {
      g.writeString(s);
    } else if (value instanceof Integer || value instanceof Long) {
      g.writeNumber(((Number) value).longValue());
    } else if (value instanceof Double d) {
      g.writeNumber(d);
    } else if (value instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (value instanceof Map<?, ?> map) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String key)) {
          throw new IllegalArgumentException("a JSON object key must be a string: " + e.getKey());
        }
        g.writeFieldName(key);
        write(g, e.getValue());
      }
      g.writeEndObject();
    } else if (value instanceof List<?> list) {
      g.writeStartArray();
      for (Object item : list) {
        write(g, item);
      }
      g.writeEndArray();
    } else {
      throw new IllegalArgumentException("no JSON form for a " + value.getClass().getName());
    }
  }

  /**
   * The value of the one JSON document in {@code bytes}.
   *
   * @throws JsonParseException with the line and column of what is wrong: malformed JSON, a
   *     duplicate key, nesting deeper than {@value #MAX_DEPTH}, or anything after the document
   */
  public static Object parse(byte[] bytes) throws JsonParseException {
    try (JsonParser p = FACTORY.createParser(bytes)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new JsonParseException(p, "no JSON value (the input is empty)");
      }
      Object value = read(p, first);
      if (p.nextToken() != null) {
        throw new JsonParseException(p, "more than one JSON value");
      }
      return value;
    } catch (JsonParseException e) {
      throw e;
    } catch (IOException e) {
      // A parser over a byte array has no I/O; whatever else it throws is about the bytes.
      throw new JsonParseException(null, e.getMessage(), e);
    }
  }

  /**
   * How {@link #read} builds a value beyond the plain types: what a JSON {@code null} becomes, and
   * whether an integer beyond a {@code long} is kept as a {@code BigInteger} (else it is an error).
   */
  public record Values(Object jsonNull, boolean bigIntegers) {
    static final Values PLAIN = new Values(null, false);
  }

  private static Object read(JsonParser p, JsonToken token) throws IOException {
    return read(p, token, Values.PLAIN);
  }

  /**
   * The value that starts at {@code token} of {@code p}, read to its end, for a caller with a
   * parser of its own configuration; duplicate keys keep their first place and take the last value
   * unless the parser refuses them.
   */
  public static Object read(JsonParser p, JsonToken token, Values values) throws IOException {
    if (token == null) {
      throw new JsonParseException(p, "unexpected end of input");
    }
    switch (token) {
      case START_OBJECT -> {
        Map<String, Object> map = new LinkedHashMap<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
          String key = p.currentName();
          map.put(key, read(p, p.nextToken(), values));
        }
        return map;
      }
      case START_ARRAY -> {
        List<Object> list = new ArrayList<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
          list.add(read(p, t, values));
        }
        return list;
      }
      case VALUE_STRING -> {
        return p.getText();
      }
      case VALUE_NUMBER_INT -> {
        return values.bigIntegers() && p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
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
        return values.jsonNull();
      }
      default -> throw new JsonParseException(p, "unexpected " + token);
    }
  }
}
