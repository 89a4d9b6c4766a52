package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonTreesTest {
  private static Map<String, Object> sample() {
    Map<String, Object> holder = new LinkedHashMap<>();
    holder.put("kind", "kubelet_pod");
    holder.put("pod", "train-\"0\"\n\u0001é");
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("version", 17L);
    root.put("leases", List.of(Map.of("holder", holder), 3, -1.5, true, false));
    root.put("none", null);
    root.put("empty", List.of());
    return root;
  }

  @Test
  void writesWhatDatabindWroteByteForByte() throws Exception {
    // Files written before this class existed must compare equal (CdiSpecSync rewrites on change).
    ObjectMapper mapper = new ObjectMapper();
    assertThat(new String(JsonTrees.render(sample(), false), StandardCharsets.UTF_8))
        .isEqualTo(mapper.writeValueAsString(sample()));
    assertThat(new String(JsonTrees.render(sample(), true), StandardCharsets.UTF_8))
        .isEqualTo(mapper.enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(sample()));
  }

  @Test
  void readsBackWhatItWroteWithIntegersAsLongsAndKeysInOrder() throws Exception {
    Map<?, ?> back = (Map<?, ?>) JsonTrees.parse(JsonTrees.render(sample(), true));
    assertThat(List.<Object>copyOf(back.keySet()))
        .containsExactly("version", "leases", "none", "empty");
    assertThat(back.get("version")).isEqualTo(17L);
    List<?> leases = (List<?>) back.get("leases");
    assertThat(List.<Object>copyOf(leases.subList(1, 5))).containsExactly(3L, -1.5, true, false);
    assertThat(((Map<?, ?>) ((Map<?, ?>) leases.get(0)).get("holder")).get("pod"))
        .isEqualTo("train-\"0\"\n\u0001é");
    assertThat(back.get("none")).isNull();
    assertThat(back.get("empty")).isEqualTo(List.of());
  }

  @Test
  void refusesWhatIsNotOneWellFormedDocumentWithItsPlace() {
    for (String bad :
        List.of(
            "",
            "{",
            "{\"a\":1,}",
            "{\"a\":1,\"a\":2}",
            "[1] [2]",
            "{\"a\":tru}",
            "\"\\u12\"",
            "[99999999999999999999999]")) {
      assertThatThrownBy(() -> JsonTrees.parse(bad.getBytes(StandardCharsets.UTF_8)))
          .as(bad)
          .isInstanceOf(JsonSyntaxException.class)
          .hasMessageNotContaining("Exception")
          .hasMessageMatching(".+ \\(line 1, column \\d+\\)");
    }
    assertThatThrownBy(() -> JsonTrees.parse("{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("Duplicate field 'a' (line 1, column 8)");
  }

  @Test
  void refusesNestingDeeperThanAnyDocumentOfOursBeforeItUsesTheStack() throws Exception {
    char[] open = new char[100_000];
    Arrays.fill(open, '[');
    assertThatThrownBy(() -> JsonTrees.parse(new String(open).getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(JsonSyntaxException.class)
        .hasMessageContaining("nesting depth (33) exceeds the maximum allowed (32)");
    String deepest = "[".repeat(JsonTrees.MAX_DEPTH) + "]".repeat(JsonTrees.MAX_DEPTH);
    assertThat(JsonTrees.parse(deepest.getBytes(StandardCharsets.UTF_8))).isInstanceOf(List.class);
  }

  @Test
  void refusesValuesWithoutAJsonForm() {
    assertThatThrownBy(() -> JsonTrees.render(Map.of("a", new Object()), false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Object");
    assertThatThrownBy(() -> JsonTrees.render(Map.of(1, "x"), false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must be a string");
  }

  @Test
  void saysWhereTheProblemIsOnItsLineAndColumnInCharacters() {
    byte[] doc = "{\n  \"é\" : [ 1,\n  ]\n}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> JsonTrees.parse(doc))
        .isInstanceOfSatisfying(
            JsonSyntaxException.class,
            e -> {
              assertThat(e.line()).isEqualTo(3);
              assertThat(e.column()).isEqualTo(3);
              assertThat(e.problem()).isEqualTo("unexpected ']': expected a value");
            });
    assertThatThrownBy(() -> JsonTrees.parse(new byte[] {'"', (byte) 0xC3, '"'}))
        .hasMessageContaining("not well-formed UTF-8");
    assertThatThrownBy(() -> JsonTrees.parse("[\"a\tb\"]".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("control characters must be escaped");
  }

  // ---- the same as Jackson, on many random documents ----

  /** The parser the agent used before, with its settings: the oracle for what is accepted. */
  private static final JsonFactory JACKSON =
      JsonFactory.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .streamReadConstraints(
              StreamReadConstraints.builder().maxNestingDepth(JsonTrees.MAX_DEPTH).build())
          .build();

  private static Object jacksonParse(byte[] bytes) throws IOException {
    try (JsonParser p = JACKSON.createParser(bytes)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new IOException("empty");
      }
      Object value = jacksonRead(p, first);
      if (p.nextToken() != null) {
        throw new IOException("trailing");
      }
      return value;
    }
  }

  private static Object jacksonRead(JsonParser p, JsonToken token) throws IOException {
    switch (token) {
      case START_OBJECT -> {
        Map<String, Object> map = new LinkedHashMap<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
          String key = p.currentName();
          map.put(key, jacksonRead(p, p.nextToken()));
        }
        return map;
      }
      case START_ARRAY -> {
        List<Object> list = new ArrayList<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
          list.add(jacksonRead(p, t));
        }
        return list;
      }
      case VALUE_STRING -> {
        return p.getText();
      }
      case VALUE_NUMBER_INT -> {
        return p.getLongValue();
      }
      case VALUE_NUMBER_FLOAT -> {
        return p.getDoubleValue();
      }
      case VALUE_TRUE -> {
        return true;
      }
      case VALUE_FALSE -> {
        return false;
      }
      case VALUE_NULL -> {
        return null;
      }
      default -> throw new IOException("unexpected " + token);
    }
  }

  private static final String ALPHABET =
      "aZ09 \"\\/\b\f\n\r\t\u0000\u0001\u001f\u007f\u0080é€\u2028\uFFFF😀{}[]:,";

  private static String randomString(Random random) {
    StringBuilder s = new StringBuilder();
    int n = random.nextInt(12);
    for (int i = 0; i < n; i++) {
      int at = random.nextInt(ALPHABET.length());
      char c = ALPHABET.charAt(at);
      if (Character.isHighSurrogate(c)) {
        s.append(c).append(ALPHABET.charAt(at + 1));
      } else if (!Character.isLowSurrogate(c)) {
        s.append(c);
      }
    }
    return s.toString();
  }

  private static Object randomValue(Random random, int depth) {
    int kind = random.nextInt(depth >= 5 ? 7 : 9);
    return switch (kind) {
      case 0 -> null;
      case 1 -> random.nextBoolean();
      case 2 -> randomString(random);
      case 3 -> random.nextInt(3) == 0 ? (long) random.nextInt(100) - 50 : random.nextLong();
      case 4 -> random.nextInt(1000) - 500;
      case 5 ->
          switch (random.nextInt(8)) {
            case 0 -> -0.0;
            case 1 -> Double.MIN_VALUE;
            case 2 -> Double.MAX_VALUE;
            case 3 -> 1e21;
            case 4 -> 0.1;
            default ->
                Double.longBitsToDouble(random.nextLong() & 0x7FEFFFFFFFFFFFFFL)
                    * (random.nextBoolean() ? 1 : -1);
          };
      case 6 -> (double) random.nextInt(1_000_000) / 1000;
      case 7 -> {
        Map<String, Object> map = new LinkedHashMap<>();
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
          map.put(randomString(random) + i, randomValue(random, depth + 1));
        }
        yield map;
      }
      default -> {
        List<Object> list = new ArrayList<>();
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
          list.add(randomValue(random, depth + 1));
        }
        yield list;
      }
    };
  }

  /** Integers as Jackson's reader and ours give them back: every one a {@code Long}. */
  private static Object normalised(Object value) {
    if (value instanceof Integer i) {
      return (long) i;
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(k, normalised(v)));
      return out;
    }
    if (value instanceof List<?> list) {
      return list.stream().map(JsonTreesTest::normalised).toList();
    }
    return value;
  }

  @Test
  void writesWhatJacksonWritesAndReadsItBackOnRandomDocuments() throws Exception {
    ObjectMapper compact = new ObjectMapper();
    ObjectMapper indented = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    Random random = new Random(25);
    for (int i = 0; i < 2_000; i++) {
      Object tree = randomValue(random, 0);
      byte[] ours = JsonTrees.render(tree, false);
      byte[] pretty = JsonTrees.render(tree, true);
      assertThat(new String(ours, StandardCharsets.UTF_8))
          .as("case %d", i)
          .isEqualTo(new String(compact.writeValueAsBytes(tree), StandardCharsets.UTF_8));
      assertThat(new String(pretty, StandardCharsets.UTF_8))
          .as("case %d, indented", i)
          .isEqualTo(new String(indented.writeValueAsBytes(tree), StandardCharsets.UTF_8));
      assertThat(JsonTrees.parse(pretty)).as("case %d", i).isEqualTo(jacksonParse(pretty));
      assertThat(JsonTrees.parse(ours)).as("case %d", i).isEqualTo(jacksonParse(ours));
      if (!(tree instanceof Double)) {
        assertThat(JsonTrees.parse(ours)).as("case %d", i).isEqualTo(normalised(tree));
      }
    }
  }

  @Test
  void refusesWhatJacksonRefusesAndReadsWhatItReadsOnDamagedDocuments() throws Exception {
    ObjectMapper compact = new ObjectMapper();
    Random random = new Random(2026);
    String damage = "{}[]:,\"\\ \t\n\r\u0000\u0001-+.eE0123456789aflnrstux/";
    int accepted = 0;
    int refused = 0;
    for (int i = 0; i < 20_000; i++) {
      StringBuilder doc = new StringBuilder(compact.writeValueAsString(randomValue(random, 0)));
      for (int edits = 1 + random.nextInt(2); edits > 0; edits--) {
        int at = random.nextInt(doc.length() + 1);
        char c = damage.charAt(random.nextInt(damage.length()));
        switch (random.nextInt(3)) {
          case 0 -> doc.insert(at, c);
          case 1 -> {
            if (at < doc.length() && !Character.isSurrogate(doc.charAt(at))) {
              doc.deleteCharAt(at);
            }
          }
          default -> {
            if (at < doc.length() && !Character.isSurrogate(doc.charAt(at))) {
              doc.setCharAt(at, c);
            }
          }
        }
      }
      byte[] bytes = doc.toString().getBytes(StandardCharsets.UTF_8);
      Object expected;
      try {
        expected = jacksonParse(bytes);
      } catch (IOException e) {
        assertThatThrownBy(() -> JsonTrees.parse(bytes))
            .as("Jackson refused %s (%s)", doc, e.getMessage())
            .isInstanceOf(JsonSyntaxException.class);
        refused++;
        continue;
      }
      Object ours;
      try {
        ours = JsonTrees.parse(bytes);
      } catch (JsonSyntaxException e) {
        if (doc.indexOf("\u0000") >= 0 && e.problem().equals("more than one JSON value")) {
          // Jackson ends a document at a NUL byte after its value; RFC 8259 has no such rule
          refused++;
          continue;
        }
        throw new AssertionError(
            "Jackson read " + ClientText.quote(doc.toString(), 400) + " but this parser: " + e, e);
      }
      assertThat(ours).as("%s", doc).isEqualTo(expected);
      accepted++;
    }
    assertThat(accepted).as("damaged documents still valid").isGreaterThan(1_000);
    assertThat(refused).as("damaged documents refused").isGreaterThan(1_000);
  }
}
