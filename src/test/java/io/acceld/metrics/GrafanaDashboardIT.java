package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/grafana/acceld.json queries only series a busy agent really exposes (a scrape of {@link
 * PopulatedAgent}), with labels those series have or Prometheus adds to every target.
 */
class GrafanaDashboardIT {
  private static final Path DASHBOARD = Path.of("deploy/grafana/acceld.json");

  /** Labels Prometheus attaches to every scraped series, and the histogram bucket label. */
  private static final Set<String> TARGET_LABELS =
      Set.of("instance", "job", "pod", "namespace", "le");

  private static final Pattern METRIC =
      Pattern.compile(
          "\\b(acceld_[a-z_]+|jvm_[a-z_]+|process_[a-z_]+|DCGM_FI_[A-Z_]+)\\b(\\{([^}]*)})?");
  private static final Pattern MATCHER_LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)");
  private static final Pattern BY = Pattern.compile("\\bby\\s*\\(([^)]*)\\)");

  @TempDir Path dir;

  @Test
  void everyQueryUsesSeriesAndLabelsTheAgentExposes() throws Exception {
    Map<String, Set<String>> exposed = new HashMap<>();
    try (PopulatedAgent agent = new PopulatedAgent(dir, DcgmCollector.LabelNames.PROMTOOL_CLEAN)) {
      for (Exposition.Sample s : Exposition.parse(agent.scrape()).samples()) {
        exposed.computeIfAbsent(s.name(), n -> new HashSet<>()).addAll(s.labels().keySet());
      }
    }

    List<String> queries = queries(new ObjectMapper().readTree(DASHBOARD.toFile()));
    assertThat(queries).hasSizeGreaterThan(10);
    Set<String> queried = new HashSet<>();
    for (String query : queries) {
      Set<String> labelsInQuery = new HashSet<>(TARGET_LABELS);
      Matcher m = METRIC.matcher(query);
      while (m.find()) {
        String name = m.group(1);
        queried.add(name);
        assertThat(exposed).as("%s in: %s", name, query).containsKey(name);
        labelsInQuery.addAll(exposed.get(name));
        if (m.group(3) != null) {
          Matcher label = MATCHER_LABEL.matcher(m.group(3));
          while (label.find()) {
            String l = label.group(1);
            assertThat(exposed.get(name).contains(l) || TARGET_LABELS.contains(l))
                .as("label %s of %s in: %s", l, name, query)
                .isTrue();
          }
        }
      }
      Matcher by = BY.matcher(query);
      while (by.find()) {
        for (String label : by.group(1).split(",")) {
          assertThat(labelsInQuery)
              .as("by (%s) in: %s", label.strip(), query)
              .contains(label.strip());
        }
      }
    }
    // The dashboard shows health, leases, registrations, allocations and which builds run.
    assertThat(queried)
        .contains(
            "acceld_build_info",
            "acceld_device_health",
            "acceld_kubelet_registered",
            "acceld_allocations_total",
            "acceld_device_leased",
            "acceld_ledger_leases");
  }

  @Test
  void everyPanelHasAPrometheusTargetAndItsOwnId() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    assertThat(dashboard.path("uid").asText()).isNotEmpty();
    Set<Integer> ids = new HashSet<>();
    for (JsonNode panel : dashboard.path("panels")) {
      assertThat(ids.add(panel.path("id").asInt())).as("unique id %s", panel.path("id")).isTrue();
      assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
      assertThat(panel.at("/datasource/type").asText()).isEqualTo("prometheus");
      assertThat(panel.path("gridPos").has("w")).isTrue();
    }
  }

  private static List<String> queries(JsonNode dashboard) {
    List<String> queries = new ArrayList<>();
    dashboard
        .path("panels")
        .forEach(p -> p.path("targets").forEach(t -> queries.add(t.path("expr").asText())));
    dashboard
        .at("/templating/list")
        .forEach(
            v -> {
              if (v.has("definition")) {
                queries.add(v.path("definition").asText());
              }
            });
    return queries;
  }
}
