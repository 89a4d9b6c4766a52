package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
          .isInstanceOf(JsonParseException.class)
          .hasMessageNotContaining("Exception");
    }
    assertThatThrownBy(() -> JsonTrees.parse("{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("Duplicate field 'a'");
  }

  @Test
  void refusesNestingDeeperThanAnyDocumentOfOursBeforeItUsesTheStack() throws Exception {
    char[] open = new char[100_000];
    Arrays.fill(open, '[');
    assertThatThrownBy(() -> JsonTrees.parse(new String(open).getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(JsonParseException.class)
        .hasMessageContaining("nesting depth");
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
}
