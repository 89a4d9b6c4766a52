package io.acceld.telemetry;

import io.acceld.nvml.NvmlField;
import io.acceld.nvml.NvmlRemappedRows;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The readings of dcgm-exporter's default counter set (and its commented-out ECC totals) beyond the
 * first seven series, in NVML's units. Kept apart from {@link GpuTelemetry}'s identity and core
 * readings so that adding a field does not touch every place that builds one. Empty means the GPU
 * or driver does not support it (or the read failed), and the series is left out for that GPU.
 *
 * @param totalEnergyMillijoules since the driver was loaded
 * @param pcieReplays PCIe link-level retransmissions since the driver was loaded
 * @param eccCorrectedVolatile single-bit ECC errors since the driver was loaded
 * @param eccCorrectedAggregate single-bit ECC errors over the GPU's lifetime
 * @param fieldValues what {@code nvmlDeviceGetFieldValues} answered (memory temperature, NVLink
 *     error totals); a field the GPU does not support has no entry
 */
public record ExtendedReadings(
    OptionalInt smClockMhz,
    OptionalInt memoryClockMhz,
    OptionalLong totalEnergyMillijoules,
    OptionalLong pcieReplays,
    OptionalInt encoderUtilizationPercent,
    OptionalInt decoderUtilizationPercent,
    Optional<NvmlRemappedRows> remappedRows,
    OptionalLong eccCorrectedVolatile,
    OptionalLong eccUncorrectedVolatile,
    OptionalLong eccCorrectedAggregate,
    OptionalLong eccUncorrectedAggregate,
    Map<NvmlField, Double> fieldValues) {

  /** Nothing read: every extended series is left out. */
  public static final ExtendedReadings NONE =
      new ExtendedReadings(
          OptionalInt.empty(),
          OptionalInt.empty(),
          OptionalLong.empty(),
          OptionalLong.empty(),
          OptionalInt.empty(),
          OptionalInt.empty(),
          Optional.empty(),
          OptionalLong.empty(),
          OptionalLong.empty(),
          OptionalLong.empty(),
          OptionalLong.empty(),
          Map.of());

  public ExtendedReadings {
    Objects.requireNonNull(smClockMhz, "smClockMhz");
    Objects.requireNonNull(memoryClockMhz, "memoryClockMhz");
    Objects.requireNonNull(totalEnergyMillijoules, "totalEnergyMillijoules");
    Objects.requireNonNull(pcieReplays, "pcieReplays");
    Objects.requireNonNull(encoderUtilizationPercent, "encoderUtilizationPercent");
    Objects.requireNonNull(decoderUtilizationPercent, "decoderUtilizationPercent");
    Objects.requireNonNull(remappedRows, "remappedRows");
    Objects.requireNonNull(eccCorrectedVolatile, "eccCorrectedVolatile");
    Objects.requireNonNull(eccUncorrectedVolatile, "eccUncorrectedVolatile");
    Objects.requireNonNull(eccCorrectedAggregate, "eccCorrectedAggregate");
    Objects.requireNonNull(eccUncorrectedAggregate, "eccUncorrectedAggregate");
    fieldValues = Map.copyOf(fieldValues);
  }
}
