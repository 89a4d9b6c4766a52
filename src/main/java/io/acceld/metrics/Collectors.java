package io.acceld.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;

/** Registration of our Prometheus-client collectors, which only a Prometheus registry can hold. */
final class Collectors {
  private Collectors() {}

  static void register(MeterRegistry registry, MultiCollector collector) {
    if (!(registry instanceof PrometheusMeterRegistry prometheus)) {
      throw new IllegalArgumentException(
          collector.getClass().getSimpleName()
              + " renders through the Prometheus client and needs a PrometheusMeterRegistry, not "
              + registry.getClass().getName());
    }
    prometheus.getPrometheusRegistry().register(collector);
  }
}
