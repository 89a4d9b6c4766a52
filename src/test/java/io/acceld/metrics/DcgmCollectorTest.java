package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.PciAddresses;
import io.acceld.telemetry.ExtendedReadings;
import io.acceld.telemetry.GpuTelemetry;
import io.acceld.telemetry.TelemetrySample;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Unit conversion and label choices of the dcgm-exporter view, from hand-made samples. */
class DcgmCollectorTest {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicReference<TelemetrySample> sample =
      new AtomicReference<>(TelemetrySample.EMPTY);

  @Test
  void framebufferIsInWholeMibAndPowerInWatts() {
    bind(DcgmCollector.LabelNames.DCGM_EXPORTER);
    sample.set(
        sampleOf(
            gpu(0, OptionalInt.of(35), OptionalLong.of(72_517), (3L << 20) + 5, (7L << 20) - 1)));

    Exposition scrape = Exposition.parse(registry.scrape());
    assertThat(scrape.value("DCGM_FI_DEV_FB_USED", "gpu", "0")).hasValue(3.0);
    assertThat(scrape.value("DCGM_FI_DEV_FB_FREE", "gpu", "0")).hasValue(6.0);
    assertThat(scrape.value("DCGM_FI_DEV_POWER_USAGE", "gpu", "0")).hasValue(72.517);
    assertThat(scrape.value("DCGM_FI_DEV_GPU_TEMP", "gpu", "0")).hasValue(35.0);
  }

  @Test
  void missingReadingsLeaveOnlyThatSeriesOut() {
    bind(DcgmCollector.LabelNames.DCGM_EXPORTER);
    sample.set(sampleOf(gpu(0, OptionalInt.empty(), OptionalLong.empty(), 1L << 20, 1L << 20)));

    Exposition scrape = Exposition.parse(registry.scrape());
    assertThat(scrape.series("DCGM_FI_DEV_GPU_TEMP")).isEmpty();
    assertThat(scrape.series("DCGM_FI_DEV_POWER_USAGE")).isEmpty();
    assertThat(scrape.series("DCGM_FI_DEV_FB_USED")).hasSize(1);
    assertThat(scrape.series("DCGM_FI_DEV_XID_ERRORS")).hasSize(1);
  }

  @Test
  void beforeTheFirstSampleThereAreNoGpuSeries() {
    bind(DcgmCollector.LabelNames.DCGM_EXPORTER);

    assertThat(Exposition.parse(registry.scrape()).samples())
        .noneMatch(s -> s.name().startsWith("DCGM_"));
  }

  @Test
  void theLintCleanLabelNamesRenameOnlyModelName() {
    bind(DcgmCollector.LabelNames.PROMTOOL_CLEAN);
    sample.set(sampleOf(gpu(0, OptionalInt.of(35), OptionalLong.of(1), 0, 0)));

    assertThat(Exposition.parse(registry.scrape()).series("DCGM_FI_DEV_GPU_TEMP"))
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.labels())
                    .containsEntry("model_name", "NVIDIA A100-SXM4-40GB")
                    .containsEntry("Hostname", "node-1")
                    .doesNotContainKey("modelName"));
  }

  @Test
  void onlyTheLintCleanModeLeavesOutTheReplayCounterWhoseNamePromtoolRejects() {
    sample.set(sampleOf(gpu(0, OptionalInt.of(35), OptionalLong.of(1), 0, 0, replays(7))));
    bind(DcgmCollector.LabelNames.PROMTOOL_CLEAN);
    assertThat(Exposition.parse(registry.scrape()).series("DCGM_FI_DEV_PCIE_REPLAY_COUNTER"))
        .isEmpty();

    PrometheusMeterRegistry dcgm = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new DcgmCollector(
            sample::get,
            new XidMetrics(),
            id -> Optional.empty(),
            "node-1",
            DcgmCollector.LabelNames.DCGM_EXPORTER)
        .bindTo(dcgm);
    assertThat(Exposition.parse(dcgm.scrape()).value("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "gpu", "0"))
        .hasValue(7.0);
  }

  private static ExtendedReadings replays(long count) {
    ExtendedReadings n = ExtendedReadings.NONE;
    return new ExtendedReadings(
        n.smClockMhz(),
        n.memoryClockMhz(),
        n.totalEnergyMillijoules(),
        OptionalLong.of(count),
        n.encoderUtilizationPercent(),
        n.decoderUtilizationPercent(),
        n.remappedRows(),
        n.eccCorrectedVolatile(),
        n.eccUncorrectedVolatile(),
        n.eccCorrectedAggregate(),
        n.eccUncorrectedAggregate(),
        n.fieldValues());
  }

  @Test
  void pciBusIdsAreInNvmlForm() {
    assertThat(PciAddresses.nvmlForm("0000:3b:00.0")).isEqualTo("00000000:3B:00.0");
    assertThat(PciAddresses.nvmlForm("00000000:3B:00.0")).isEqualTo("00000000:3B:00.0");
    assertThat(PciAddresses.nvmlForm("10000:e1:00.0")).isEqualTo("00010000:E1:00.0");
  }

  private void bind(DcgmCollector.LabelNames names) {
    new DcgmCollector(sample::get, new XidMetrics(), id -> Optional.empty(), "node-1", names)
        .bindTo(registry);
  }

  private static TelemetrySample sampleOf(GpuTelemetry... gpus) {
    return new TelemetrySample(Instant.parse("2026-01-01T00:00:00Z"), List.of(gpus));
  }

  private static GpuTelemetry gpu(
      int index, OptionalInt temp, OptionalLong milliwatts, long usedBytes, long freeBytes) {
    return gpu(index, temp, milliwatts, usedBytes, freeBytes, ExtendedReadings.NONE);
  }

  private static GpuTelemetry gpu(
      int index,
      OptionalInt temp,
      OptionalLong milliwatts,
      long usedBytes,
      long freeBytes,
      ExtendedReadings extended) {
    return new GpuTelemetry(
        "GPU-" + index,
        "GPU-" + index,
        index,
        "00000000:3B:00.0",
        "NVIDIA A100-SXM4-40GB",
        temp,
        milliwatts,
        OptionalInt.of(50),
        OptionalInt.of(20),
        OptionalLong.of(usedBytes),
        OptionalLong.of(freeBytes),
        extended);
  }
}
