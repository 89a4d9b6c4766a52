package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * Registration, allocation and stream events from the kubelet servers become per-resource series.
 */
class KubeletMetricsTest {
  private static final String GPU = "nvidia.com/gpu";
  private static final String SHARED = "nvidia.com/gpu.shared";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final KubeletMetrics metrics = new KubeletMetrics();
  private final KubeletMetrics events = metrics;

  @Test
  void registrationShowsAsAGaugeAndEachSuccessIsCounted() {
    metrics.bindTo(registry);

    events.registered(GPU, true);
    assertThat(scrape().value("acceld_kubelet_registered", "resource", GPU)).hasValue(1.0);

    events.registered(GPU, false); // the kubelet restarted
    assertThat(scrape().value("acceld_kubelet_registered", "resource", GPU)).hasValue(0.0);

    events.registered(GPU, true);
    Exposition scrape = scrape();
    assertThat(scrape.value("acceld_kubelet_registered", "resource", GPU)).hasValue(1.0);
    assertThat(scrape.value("acceld_kubelet_registrations_total", "resource", GPU)).hasValue(2.0);
  }

  @Test
  void allocationsCountDevicesAndRequestsPerResource() {
    metrics.bindTo(registry);

    events.allocated(GPU, 2);
    events.allocated(GPU, 1);
    events.allocated(SHARED, 4);

    Exposition scrape = scrape();
    assertThat(scrape.value("acceld_allocations_total", "resource", GPU)).hasValue(3.0);
    assertThat(scrape.value("acceld_allocate_requests_total", "resource", GPU)).hasValue(2.0);
    assertThat(scrape.value("acceld_allocations_total", "resource", SHARED)).hasValue(4.0);
    assertThat(scrape.value("acceld_allocate_requests_total", "resource", SHARED)).hasValue(1.0);
  }

  @Test
  void streamsGaugeFollowsOpenListAndWatchStreams() {
    metrics.bindTo(registry);

    events.streams(GPU, 1);
    assertThat(scrape().value("acceld_listandwatch_streams", "resource", GPU)).hasValue(1.0);
    events.streams(GPU, 2); // the kubelet reconnected before the old stream ended
    assertThat(scrape().value("acceld_listandwatch_streams", "resource", GPU)).hasValue(2.0);
    events.streams(GPU, 0);
    assertThat(scrape().value("acceld_listandwatch_streams", "resource", GPU)).hasValue(0.0);
  }

  @Test
  void everySeriesHasHelpText() {
    metrics.bindTo(registry);
    events.registered(GPU, true);

    String text = registry.scrape();
    for (String family :
        new String[] {
          "acceld_kubelet_registered",
          "acceld_kubelet_registrations_total",
          "acceld_allocations_total",
          "acceld_allocate_requests_total",
          "acceld_listandwatch_streams"
        }) {
      assertThat(text).containsPattern("# HELP " + family + " \\S");
    }
  }

  @Test
  void eventsBeforeBindingAppearOnceBound() {
    events.registered(GPU, true);
    events.allocated(GPU, 3);

    SimpleMeterRegistry simple = new SimpleMeterRegistry();
    metrics.bindTo(simple);

    assertThat(simple.get(KubeletMetrics.REGISTERED).tag("resource", GPU).gauge().value())
        .isEqualTo(1.0);
    assertThat(simple.get(KubeletMetrics.ALLOCATIONS).functionCounter().count()).isEqualTo(3.0);
  }

  private Exposition scrape() {
    return Exposition.parse(registry.scrape());
  }
}
