package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** XID errors are counted per code and the last one per GPU is remembered for the DCGM gauge. */
class XidMetricsTest {
  private static final String GPU = "nvidia.com/gpu";

  @Test
  void countsEachXidCodePerDevice() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    XidMetrics xids = new XidMetrics();
    xids.bindTo(registry);

    xids.record(GPU, "GPU-a", 13);
    xids.record(GPU, "GPU-a", 13);
    xids.record(GPU, "GPU-a", 79);
    xids.record(GPU, "GPU-b", 48);

    Exposition scrape = Exposition.parse(registry.scrape());
    String name = "acceld_device_xid_errors_total";
    assertThat(scrape.value(name, "device", "GPU-a", "xid", "13", "resource", GPU)).hasValue(2.0);
    assertThat(scrape.value(name, "device", "GPU-a", "xid", "79")).hasValue(1.0);
    assertThat(scrape.value(name, "device", "GPU-b", "xid", "48")).hasValue(1.0);
    assertThat(scrape.series(name)).hasSize(3);
    assertThat(scrape.text()).contains("# HELP " + name + " XID errors reported by the driver");
  }

  @Test
  void remembersTheLastXidPerDevice() {
    XidMetrics xids = new XidMetrics();
    xids.bindTo(new SimpleMeterRegistry());

    xids.record(GPU, "GPU-a", 13);
    xids.record(GPU, "GPU-a", 79);

    assertThat(xids.lastXid("GPU-a")).hasValue(79);
    assertThat(xids.lastXid("GPU-b")).isEmpty();
  }

  @Test
  void errorsBeforeBindingAreNotLost() {
    XidMetrics xids = new XidMetrics();
    xids.record(GPU, "GPU-a", 31);

    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    xids.bindTo(registry);
    xids.record(GPU, "GPU-a", 31);

    assertThat(registry.get(XidMetrics.XID_ERRORS).tag("xid", "31").functionCounter().count())
        .isEqualTo(2.0);
  }
}
