package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.util.BuildInfo;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which build runs on a node is one series away: acceld_build_info, always 1. */
class BuildInfoMetricsTest {
  @Test
  void everyScrapeSaysWhichBuildAndJavaRun() {
    BuildInfo build = new BuildInfo("1.2.3", "0123456789ab-dirty", "2026-12-01T00:00:00Z");
    try (AgentMetrics metrics = AgentMetrics.builder().hostname("n").buildInfo(build).build()) {
      String text = metrics.registry().scrape();

      assertThat(Exposition.parse(text).series("acceld_build_info"))
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.labels())
                    .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                            "version", "1.2.3",
                            "revision", "0123456789ab-dirty",
                            "java", Runtime.version().toString()));
                assertThat(s.value()).isEqualTo(1.0);
              });
      assertThat(text).contains("# TYPE acceld_build_info gauge");
    }
  }

  @Test
  void openMetricsSeesAnInfoFamily() {
    BuildInfo build = new BuildInfo("1.2.3", "abc", "2026-12-01T00:00:00Z");
    try (AgentMetrics metrics = AgentMetrics.builder().hostname("n").buildInfo(build).build()) {
      String text =
          metrics.registry().scrape("application/openmetrics-text; version=1.0.0; charset=utf-8");

      assertThat(text)
          .contains("# TYPE acceld_build info")
          .contains("acceld_build_info{java=\"" + Runtime.version() + "\",revision=\"abc\"");
    }
  }

  @Test
  void byDefaultItIsThisJarsBuild() {
    try (AgentMetrics metrics = AgentMetrics.builder().hostname("n").build()) {
      assertThat(
              Exposition.parse(metrics.registry().scrape())
                  .value("acceld_build_info", "revision", BuildInfo.current().revision()))
          .hasValue(1.0);
    }
  }
}
