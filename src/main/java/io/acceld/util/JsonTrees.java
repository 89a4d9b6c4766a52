package io.acceld.util;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON documents as plain Java values: an object is a {@code Map<String, ?>} (insertion-ordered
 * when read), an array a {@code List<?>}, and the rest {@code String}, {@code Long} or {@code
 * Double}, {@code Boolean} and {@code null}.
 *
 * <p>The files the agent keeps on every node (the lease checkpoint, the CDI specs, the Mesos
 * bridge's records) are written and read here, by hand, rather than by Jackson: its streaming layer
 * is ~70 classes (its parsers for every kind of input among them), 1.1 MB of the class-data archive
 * and so of every node's RSS, for two small documents. Jackson stays where its breadth is used: the
 * Mesos bridge's wire messages, the API server's objects and {@code /devices}, each loaded only
 * where it runs.
 *
 * <p>What it writes is byte for byte what Jackson wrote (files written before compare equal, and
 * the CDI spec sync rewrites only on change). What it reads is RFC 8259 JSON in UTF-8, as strictly
 * as Jackson's defaults read it: no comments, no trailing commas, no leading zeros, no unescaped
 * control characters; and, beyond them, no duplicate keys and no nesting deeper than {@value
 * #MAX_DEPTH}.
 */
public final class JsonTrees {
  /** Deeper than any document of ours; a deeper one is refused before it can use the stack. */
  static final int MAX_DEPTH = 32;

  /** Longer than any number of ours; bounds what {@code Double.parseDouble} is given. */
  static final int MAX_NUMBER_CHARS = 1000;

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private JsonTrees() {}

  /**
   * The UTF-8 JSON of {@code value}; {@code indented} is Jackson's default pretty printer (two
   * spaces, {@code " : "}, arrays on one line), as databind's {@code INDENT_OUTPUT} wrote it.
   *
   * @throws IllegalArgumentException if the tree holds anything but the types above, or a map key
   *     that is not a string
   */
  public static byte[] render(Object value, boolean indented) {
    StringBuilder out = new StringBuilder(256);
    write(out, value, indented, 0);
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void write(StringBuilder out, Object value, boolean indented, int nesting) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      string(out, s);
    } else if (value instanceof Integer || value instanceof Long) {
      out.append(((Number) value).longValue());
    } else if (value instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) {
        string(out, d.toString()); // as Jackson: a quoted "NaN", "Infinity", "-Infinity"
      } else {
        out.append(d.doubleValue());
      }
    } else if (value instanceof Boolean b) {
      out.append(b.booleanValue());
    } else if (value instanceof Map<?, ?> map) {
      object(out, map, indented, nesting);
    } else if (value instanceof List<?> list) {
      array(out, list, indented, nesting);
    } else {
      throw new IllegalArgumentException("no JSON form for a " + value.getClass().getName());
    }
  }

  private static void object(StringBuilder out, Map<?, ?> map, boolean indented, int nesting) {
    out.append('{');
    if (map.isEmpty()) {
      out.append(indented ? " }" : "}");
      return;
    }
    boolean first = true;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!(e.getKey() instanceof String key)) {
        throw new IllegalArgumentException("a JSON object key must be a string: " + e.getKey());
      }
      if (!first) {
        out.append(',');
      }
      first = false;
      if (indented) {
        newLine(out, nesting + 1);
      }
      string(out, key);
      out.append(indented ? " : " : ":");
      write(out, e.getValue(), indented, nesting + 1);
    }
    if (indented) {
      newLine(out, nesting);
    }
    out.append('}');
  }

  /** Arrays stay on one line when indented, and do not indent what they hold any further. */
  private static void array(StringBuilder out, List<?> list, boolean indented, int nesting) {
    out.append('[');
    if (list.isEmpty()) {
      out.append(indented ? " ]" : "]");
      return;
    }
    boolean first = true;
    for (Object item : list) {
      out.append(first ? (indented ? " " : "") : (indented ? ", " : ","));
      first = false;
      write(out, item, indented, nesting);
    }
    out.append(indented ? " ]" : "]");
  }

  private static void newLine(StringBuilder out, int nesting) {
    out.append('\n');
    for (int i = 0; i < nesting; i++) {
      out.append("  ");
    }
  }

  /**
   * A quoted string, escaped as Jackson escapes it: the quote, the backslash and the control
   * characters ({@code \b \t \n \f \r} by name, the rest as {@code \}{@code u00XX}), and each half
   * of a surrogate pair as its own escape; everything else as it is.
   */
  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\t' -> out.append("\\t");
        case '\n' -> out.append("\\n");
        case '\f' -> out.append("\\f");
        case '\r' -> out.append("\\r");
        default -> {
          if (c < 0x20 || Character.isSurrogate(c)) {
            out.append("\\u")
                .append(HEX[c >> 12 & 0xF])
                .append(HEX[c >> 8 & 0xF])
                .append(HEX[c >> 4 & 0xF])
                .append(HEX[c & 0xF]);
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /**
   * The value of the one JSON document in {@code bytes} (UTF-8, a byte-order mark allowed).
   *
   * @throws JsonSyntaxException with the line and column of what is wrong: malformed JSON or UTF-8,
   *     a duplicate key, an integer beyond a {@code long}, nesting deeper than {@value #MAX_DEPTH},
   *     or anything after the document
   */
  public static Object parse(byte[] bytes) throws JsonSyntaxException {
    Reader r = new Reader(bytes);
    if (bytes.length >= 3
        && (bytes[0] & 0xFF) == 0xEF
        && (bytes[1] & 0xFF) == 0xBB
        && (bytes[2] & 0xFF) == 0xBF) {
      r.pos = 3;
    }
    r.skipWhitespace();
    if (r.pos == bytes.length) {
      throw r.error("no JSON value (the input is empty)");
    }
    Object value = r.value(0);
    r.skipWhitespace();
    if (r.pos != bytes.length) {
      throw r.error("more than one JSON value");
    }
    return value;
  }

  /** One pass over the bytes, by recursive descent bounded by {@link #MAX_DEPTH}. */
  private static final class Reader {
    private final byte[] in;
    private int pos;

    Reader(byte[] in) {
      this.in = in;
    }

    Object value(int depth) throws JsonSyntaxException {
      if (pos == in.length) {
        throw error("unexpected end of input: expected a value");
      }
      int c = in[pos] & 0xFF;
      switch (c) {
        case '{' -> {
          return object(depth + 1);
        }
        case '[' -> {
          return array(depth + 1);
        }
        case '"' -> {
          return string();
        }
        case 't' -> {
          return literal("true", Boolean.TRUE);
        }
        case 'f' -> {
          return literal("false", Boolean.FALSE);
        }
        case 'n' -> {
          return literal("null", null);
        }
        default -> {
          if (c == '-' || (c >= '0' && c <= '9')) {
            return number();
          }
          throw error("unexpected " + describe(c) + ": expected a value");
        }
      }
    }

    private Map<String, Object> object(int depth) throws JsonSyntaxException {
      checkDepth(depth);
      pos++; // '{'
      Map<String, Object> map = new LinkedHashMap<>();
      skipWhitespace();
      if (peek() == '}') {
        pos++;
        return map;
      }
      while (true) {
        skipWhitespace();
        if (peek() != '"') {
          throw error("unexpected " + describeNext() + ": expected a key in double quotes");
        }
        int keyAt = pos;
        String key = string();
        skipWhitespace();
        expect(':', "a ':' after the key");
        skipWhitespace();
        Object value = value(depth);
        if (map.containsKey(key)) {
          pos = keyAt;
          throw error("Duplicate field '" + ClientText.escape(key) + "'");
        }
        map.put(key, value);
        skipWhitespace();
        int next = peek();
        pos++;
        if (next == '}') {
          return map;
        }
        if (next != ',') {
          pos--;
          throw error("unexpected " + describeNext() + ": expected ',' or '}' in an object");
        }
      }
    }

    private List<Object> array(int depth) throws JsonSyntaxException {
      checkDepth(depth);
      pos++; // '['
      List<Object> list = new ArrayList<>();
      skipWhitespace();
      if (peek() == ']') {
        pos++;
        return list;
      }
      while (true) {
        skipWhitespace();
        list.add(value(depth));
        skipWhitespace();
        int next = peek();
        pos++;
        if (next == ']') {
          return list;
        }
        if (next != ',') {
          pos--;
          throw error("unexpected " + describeNext() + ": expected ',' or ']' in an array");
        }
      }
    }

    private void checkDepth(int depth) throws JsonSyntaxException {
      if (depth > MAX_DEPTH) {
        throw error(
            "nesting depth (" + depth + ") exceeds the maximum allowed (" + MAX_DEPTH + ")");
      }
    }

    private Object literal(String word, Object value) throws JsonSyntaxException {
      int end = pos + word.length();
      boolean matches = end <= in.length;
      for (int i = 0; matches && i < word.length(); i++) {
        matches = in[pos + i] == word.charAt(i);
      }
      if (!matches || (end < in.length && isWordByte(in[end] & 0xFF))) {
        throw error("unrecognised token: expected '" + word + "'");
      }
      pos = end;
      return value;
    }

    private Object number() throws JsonSyntaxException {
      int start = pos;
      if (peek() == '-') {
        pos++;
      }
      if (peek() == '0') {
        pos++;
        if (isDigit(peek())) {
          throw error("a number with a leading zero");
        }
      } else if (!digits()) {
        throw error("unexpected " + describeNext() + ": expected a digit");
      }
      boolean integral = true;
      if (peek() == '.') {
        integral = false;
        pos++;
        if (!digits()) {
          throw error("unexpected " + describeNext() + ": expected a digit after '.'");
        }
      }
      if (peek() == 'e' || peek() == 'E') {
        integral = false;
        pos++;
        if (peek() == '+' || peek() == '-') {
          pos++;
        }
        if (!digits()) {
          throw error("unexpected " + describeNext() + ": expected a digit in the exponent");
        }
      }
      if (pos < in.length && isWordByte(in[pos] & 0xFF)) {
        throw error("unexpected " + describeNext() + " in a number");
      }
      if (pos - start > MAX_NUMBER_CHARS) {
        pos = start;
        throw error("a number longer than " + MAX_NUMBER_CHARS + " characters");
      }
      String text = new String(in, start, pos - start, StandardCharsets.US_ASCII);
      if (!integral) {
        return Double.parseDouble(text);
      }
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        pos = start;
        throw error("the integer " + ClientText.quote(text, 40) + " is out of range of a long");
      }
    }

    private boolean digits() {
      int start = pos;
      while (isDigit(peek())) {
        pos++;
      }
      return pos > start;
    }

    private String string() throws JsonSyntaxException {
      int quote = pos;
      pos++; // '"'
      StringBuilder out = null;
      int run = pos; // start of the bytes not yet copied to out
      while (true) {
        if (pos == in.length) {
          pos = quote;
          throw error("a string that never ends");
        }
        int c = in[pos] & 0xFF;
        if (c == '"') {
          String tail = utf8(run, pos);
          pos++;
          return out == null ? tail : out.append(tail).toString();
        }
        if (c < 0x20) {
          throw error(describe(c) + " in a string: control characters must be escaped");
        }
        if (c != '\\') {
          pos++;
          continue;
        }
        if (out == null) {
          out = new StringBuilder();
        }
        out.append(utf8(run, pos));
        pos++;
        int e = peek();
        switch (e) {
          case '"', '\\', '/' -> out.append((char) e);
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            int code = 0;
            for (int i = 1; i <= 4; i++) {
              int h = pos + i < in.length ? Character.digit(in[pos + i], 16) : -1;
              if (h < 0) {
                pos += i;
                throw error("a \\u escape needs four hexadecimal digits");
              }
              code = code << 4 | h;
            }
            out.append((char) code);
            pos += 4;
          }
          default -> throw error("unknown escape \\" + describeNext());
        }
        pos++;
        run = pos;
      }
    }

    /** The bytes between {@code from} and {@code to}, which must be well-formed UTF-8. */
    private String utf8(int from, int to) throws JsonSyntaxException {
      boolean ascii = true;
      for (int i = from; i < to && ascii; i++) {
        ascii = in[i] >= 0;
      }
      if (ascii) {
        return new String(in, from, to - from, StandardCharsets.ISO_8859_1);
      }
      try {
        CharBuffer chars =
            StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(in, from, to - from));
        return chars.toString();
      } catch (CharacterCodingException e) {
        pos = from;
        throw error("a string that is not well-formed UTF-8");
      }
    }

    private void expect(char c, String what) throws JsonSyntaxException {
      if (peek() != c) {
        throw error("unexpected " + describeNext() + ": expected " + what);
      }
      pos++;
    }

    void skipWhitespace() {
      while (pos < in.length) {
        byte b = in[pos];
        if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
          return;
        }
        pos++;
      }
    }

    private int peek() {
      return pos < in.length ? in[pos] & 0xFF : -1;
    }

    private String describeNext() {
      return describe(peek());
    }

    private static String describe(int c) {
      if (c < 0) {
        return "end of input";
      }
      if (c >= 0x21 && c < 0x7F) {
        return "'" + (char) c + "'";
      }
      return String.format("byte 0x%02X", c);
    }

    private static boolean isDigit(int c) {
      return c >= '0' && c <= '9';
    }

    /** What may not follow a literal or a number directly: a letter, a digit, and so on. */
    private static boolean isWordByte(int c) {
      return (c >= '0' && c <= '9')
          || (c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || c == '_'
          || c == '.'
          || c == '-'
          || c == '+'
          || c >= 0x80;
    }

    /** The error at the current position: its line and its column in characters, from 1. */
    JsonSyntaxException error(String problem) {
      int at = Math.min(pos, in.length);
      int line = 1;
      int column = 1;
      for (int i = 0; i < at; i++) {
        if (in[i] == '\n') {
          line++;
          column = 1;
        } else if ((in[i] & 0xC0) != 0x80) {
          column++;
        }
      }
      return new JsonSyntaxException(problem, line, column);
    }
  }
}
