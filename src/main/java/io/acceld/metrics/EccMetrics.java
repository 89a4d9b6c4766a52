package io.acceld.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Corrected (single-bit) ECC errors reported through NVML events: {@code
 * acceld_device_ecc_corrected_errors_total{resource,device}}. They never mark a GPU unhealthy, so a
 * rising count is the only early warning an operator gets.
 */
public final class EccMetrics implements MeterBinder {
  static final String CORRECTED = "acceld.device.ecc.corrected.errors";

  private volatile MeterRegistry registry;

  @Override
  public void bindTo(MeterRegistry registry) {
    this.registry = registry;
  }

  /** One corrected ECC error on {@code deviceId}; dropped if not yet bound. */
  public void recordCorrected(String resource, String deviceId) {
    MeterRegistry r = registry;
    if (r != null) {
      Counter.builder(CORRECTED)
          .description("Corrected (single-bit) ECC errors reported by NVML events")
          .tags("resource", resource, "device", deviceId)
          .register(r)
          .increment();
    }
  }
}
