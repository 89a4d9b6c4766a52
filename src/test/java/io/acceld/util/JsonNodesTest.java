package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The codec reads and writes what databind's own mapper does, checked against that mapper. */
class JsonNodesTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** A ResourceSlice-shaped document with every kind of value the API server sends. */
  private static final String SLICE =
      """
      {"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",\
      "metadata":{"name":"n-gpu.acceld.io-x7","generation":3,"resourceVersion":"12345",\
      "labels":{},"ownerReferences":[{"controller":true,"uid":"7f3a"}]},\
      "spec":{"nodeName":"n","pool":{"generation":9223372036854775807,"resourceSliceCount":1},\
      "devices":[{"name":"gpu-0","attributes":{"index":{"int":0},"ratio":{"string":"1.5e3"},\
      "big":{"int":123456789012345678901234567890},"frac":{"double":0.25},\
      "neg":{"int":-2147483649},"nothing":null,"ok":true,"no":false,\
      "text":{"string":"caf\\u00e9 \\"quoted\\" \\n line"}}}],"empty":[]}}""";

  @Test
  void readsTheSameTreeAsTheMapperWithTheSameNumberTypes() throws IOException {
    byte[] json = SLICE.getBytes(StandardCharsets.UTF_8);

    JsonNode ours = JsonNodes.parse(json);
    JsonNode theirs = MAPPER.readTree(json);

    // equals compares node classes too: an IntNode never equals a LongNode of the same value
    assertThat(ours).isEqualTo(theirs);
    assertThat(ours.at("/spec/pool/generation").isLong()).isTrue();
    assertThat(ours.at("/spec/devices/0/attributes/big/int").isBigInteger()).isTrue();
    assertThat(ours.at("/spec/devices/0/attributes/index/int").isInt()).isTrue();
  }

  @Test
  void writesWhatTheMapperWritesAndReadsItBack() throws IOException {
    JsonNode tree = MAPPER.readTree(SLICE);

    byte[] ours = JsonNodes.render(tree);

    assertThat(new String(ours, StandardCharsets.UTF_8)).isEqualTo(MAPPER.writeValueAsString(tree));
    assertThat(JsonNodes.parse(ours)).isEqualTo(tree);
    var built = JsonNodes.object();
    built.putObject("metadata").put("name", "x").put("generation", 2L);
    built.putArray("items").add(1.5).add("two").addNull();
    assertThat(new String(JsonNodes.render(built), StandardCharsets.UTF_8))
        .isEqualTo(MAPPER.writeValueAsString(built));
  }

  @Test
  void readsYamlThroughItsParser() throws IOException {
    String yaml = "clusters:\n- name: c\n  cluster:\n    server: https://10.0.0.1:6443\n    n: 3\n";

    JsonNode ours = JsonNodes.parse(new YAMLFactory().createParser(yaml));

    assertThat(ours).isEqualTo(new ObjectMapper(new YAMLFactory()).readTree(yaml));
    assertThat(ours.at("/clusters/0/cluster/server").asText()).isEqualTo("https://10.0.0.1:6443");
  }

  @Test
  void repeatedKeysKeepTheLastValueAsTheMapperDoes() throws IOException {
    byte[] json = "{\"a\":1,\"a\":{\"b\":2}}".getBytes(StandardCharsets.UTF_8);

    assertThat(JsonNodes.parse(json)).isEqualTo(MAPPER.readTree(json));
  }

  @Test
  void nothingAtAllIsTheMissingNodeNotAnError() throws IOException {
    assertThat(JsonNodes.parse(new byte[0])).isSameAs(MissingNode.getInstance());
    assertThat(JsonNodes.parse("  \n".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(MissingNode.class);
  }

  @Test
  void badInputIsAnErrorThatSaysWhatWasWrong() {
    assertThatThrownBy(() -> JsonNodes.parse(bytes("{\"a\":1} {\"b\":2}")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("more content after the document");
    assertThatThrownBy(() -> JsonNodes.parse(bytes("{\"a\":")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("end-of-input");
    assertThatThrownBy(() -> JsonNodes.parse(bytes("{\"a\" 1}")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("expecting a colon");
  }

  @Test
  void aDocumentNestedPastTheBoundIsRefusedNotRecursedInto() throws IOException {
    String ok = "[".repeat(JsonNodes.MAX_DEPTH) + "]".repeat(JsonNodes.MAX_DEPTH);
    assertThat(JsonNodes.parse(bytes(ok)).isArray()).isTrue();

    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    assertThatThrownBy(() -> JsonNodes.parse(bytes(deep)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("nested deeper than " + JsonNodes.MAX_DEPTH);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
