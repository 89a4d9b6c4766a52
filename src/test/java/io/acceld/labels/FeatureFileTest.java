package io.acceld.labels;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The feature file through NFD's reading of it: every label written is a label NFD applies. */
class FeatureFileTest {
  @Test
  void everyLabelOfARealNodeRoundTripsThroughNfdsParsing() {
    LabelSet labels = NodeLabels.of(Nodes.mixedMigNode());
    assertThat(labels.labels()).hasSizeGreaterThan(40);

    FeatureFile.Rendered rendered = FeatureFile.render(labels);
    NfdFeatureFiles.Reading nfd = NfdFeatureFiles.read(rendered.content());

    assertThat(rendered.dropped()).isEmpty();
    assertThat(nfd.skipped()).isFalse();
    assertThat(nfd.refused()).isEmpty();
    assertThat(nfd.directives()).as("no expiry or other directive").isEmpty();
    assertThat(nfd.labels()).containsExactlyEntriesOf(labels.labels());
    // An empty value stays empty: GFD's sharing strategy of an invalid single node is "".
    String text = new String(rendered.content(), StandardCharsets.US_ASCII);
    assertThat(text).startsWith("# ").endsWith("\n").doesNotContain("\r");
    assertThat(text.lines().skip(1)).allMatch(l -> l.matches("[^=\\s#]+=[^=\\s]*"));
  }

  @Test
  void theParserTellsAcceptedFromRefusedSoTheRoundTripCanFail() {
    NfdFeatureFiles.Reading nfd =
        NfdFeatureFiles.read(
            String.join(
                    "\n",
                    "# a comment",
                    "# +expiry-time=2030-01-01T00:00:00Z",
                    "  vendor.io/flag  ",
                    "",
                    "vendor.io/a=b=c",
                    "unprefixed=1",
                    "kubernetes.io/denied=1",
                    "vendor.io/spaced=A B",
                    "vendor.io/" + "x".repeat(64) + "=1")
                .getBytes(StandardCharsets.UTF_8));
    assertThat(nfd.labels())
        .containsExactly(
            Map.entry("vendor.io/flag", "true"),
            Map.entry("feature.node.kubernetes.io/unprefixed", "1"));
    assertThat(nfd.refused()).hasSize(4);
    assertThat(nfd.directives()).hasSize(1);
    assertThat(NfdFeatureFiles.read(new byte[65537]).skipped()).isTrue();
  }

  @Test
  void aSetOverNfdsSizeLimitIsCutBeforeTheLabelThatWouldCrossIt() {
    Map<String, String> many = new LinkedHashMap<>();
    for (int i = 0; i < 1000; i++) {
      many.put(
          String.format("acceld.io/label-%04d-%s", i, "n".repeat(47)),
          String.format("%04d%s", i, "v".repeat(59)));
    }
    LabelSet labels = new LabelSet(many, List.of());

    FeatureFile.Rendered rendered = FeatureFile.render(labels);
    NfdFeatureFiles.Reading nfd = NfdFeatureFiles.read(rendered.content());

    assertThat(rendered.content().length).isLessThanOrEqualTo(FeatureFile.MAX_BYTES);
    assertThat(nfd.skipped()).isFalse();
    assertThat(nfd.refused()).isEmpty();
    int kept = nfd.labels().size();
    // Every line is as long: as many as fit after the header, and the first ones.
    Map.Entry<String, String> first = many.entrySet().iterator().next();
    int line = first.getKey().length() + 1 + first.getValue().length() + 1;
    assertThat(kept).isEqualTo((FeatureFile.MAX_BYTES - FeatureFile.HEADER.length()) / line);
    assertThat(nfd.labels().keySet())
        .containsExactlyElementsOf(many.keySet().stream().limit(kept).toList());
    assertThat(rendered.dropped())
        .hasSize(1000 - kept)
        .first()
        .isEqualTo(many.keySet().stream().skip(kept).findFirst().orElseThrow());
  }

  @Test
  void aFileExactlyAtTheLimitKeepsEveryLabelAndOneByteLessDropsTheLast() {
    Map<String, String> labels = new LinkedHashMap<>();
    for (int i = 0; i < 5; i++) {
      labels.put("acceld.io/k" + i, "v" + i);
    }
    LabelSet set = new LabelSet(labels, List.of());
    int size = FeatureFile.render(set).content().length;

    assertThat(FeatureFile.render(set, size).dropped()).isEmpty();
    assertThat(FeatureFile.render(set, size - 1).dropped()).containsExactly("acceld.io/k4");
  }
}
