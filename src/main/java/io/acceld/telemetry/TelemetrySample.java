package io.acceld.telemetry;

import java.time.Instant;
import java.util.List;

/**
 * Everything one sampling pass read, immutable, so a scrape can render it from any thread while the
 * next pass is being taken.
 *
 * @param takenAt when the pass finished
 * @param gpus the GPUs that answered, in inventory order; a lost GPU is absent
 */
public record TelemetrySample(Instant takenAt, List<GpuTelemetry> gpus) {
  /** Before the first pass, or without NVML. */
  public static final TelemetrySample EMPTY = new TelemetrySample(Instant.EPOCH, List.of());

  public TelemetrySample {
    gpus = List.copyOf(gpus);
  }
}
