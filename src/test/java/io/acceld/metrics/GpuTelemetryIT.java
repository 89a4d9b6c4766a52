package io.acceld.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.ledger.Holder;
import io.acceld.nvml.Nvml;
import io.acceld.simulate.NvmlFaults;
import io.acceld.simulate.NvmlScenario;
import io.acceld.telemetry.GpuTelemetry;
import io.acceld.telemetry.GpuTelemetrySampler;
import io.acceld.telemetry.TelemetrySample;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import io.acceld.testing.TestDevices;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GPU telemetry through the real NVML binding and the NVML double, rendered as dcgm-exporter. */
class GpuTelemetryIT {
  private static final String MODEL = "NVIDIA H100 80GB HBM3";
  private static final long MIB = 1L << 20;

  @TempDir Path dir;

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final XidMetrics xids = new XidMetrics();
  private NvmlDouble fake;
  private Nvml nvml;
  private GpuTelemetrySampler sampler;

  @AfterEach
  void close() {
    if (sampler != null) {
      sampler.close();
    }
    if (nvml != null) {
      nvml.close();
    }
  }

  @Test
  void gaugesUseDcgmNamesUnitsAndLabels() {
    open(NvmlScenarios.h100s(2), inventory(2));
    Holder.KubeletPod trainer = new Holder.KubeletPod("ml", "trainer-0", "worker");
    bind(id -> id.equals(NvmlScenarios.uuid(0)) ? Optional.of(trainer) : Optional.empty());

    sampler.sampleNow();

    Exposition scrape = scrape();
    String uuid0 = NvmlScenarios.uuid(0);
    assertThat(scrape.series("DCGM_FI_DEV_GPU_TEMP"))
        .filteredOn(s -> s.labels().get("gpu").equals("0"))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.value()).isEqualTo(40.0);
              assertThat(s.labels())
                  .containsExactlyInAnyOrderEntriesOf(
                      Map.of(
                          "gpu", "0",
                          "UUID", uuid0,
                          "pci_bus_id", "00000000:18:00.0",
                          "device", "nvidia0",
                          "modelName", MODEL,
                          "Hostname", "node-1",
                          "pod", "trainer-0",
                          "namespace", "ml",
                          "container", "worker"));
            });
    // a GPU no container holds has no pod labels at all
    assertThat(scrape.series("DCGM_FI_DEV_GPU_TEMP"))
        .filteredOn(s -> s.labels().get("gpu").equals("1"))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.value()).isEqualTo(41.0);
              assertThat(s.labels()).doesNotContainKeys("pod", "namespace", "container");
              assertThat(s.labels()).containsEntry("pci_bus_id", "00000000:2A:00.0");
            });
    // W, not mW
    assertThat(scrape.value("DCGM_FI_DEV_POWER_USAGE", "gpu", "0")).hasValue(300.0);
    assertThat(scrape.value("DCGM_FI_DEV_POWER_USAGE", "gpu", "1")).hasValue(300.001);
    assertThat(scrape.value("DCGM_FI_DEV_GPU_UTIL", "gpu", "1")).hasValue(11.0);
    assertThat(scrape.value("DCGM_FI_DEV_MEM_COPY_UTIL", "gpu", "1")).hasValue(6.0);
    // MiB, not bytes
    assertThat(scrape.value("DCGM_FI_DEV_FB_USED", "gpu", "0")).hasValue(1024.0);
    assertThat(scrape.value("DCGM_FI_DEV_FB_FREE", "gpu", "0"))
        .hasValue((double) (NvmlScenarios.H100_MEMORY / MIB - 1024));
    assertThat(scrape.value("DCGM_FI_DEV_XID_ERRORS", "gpu", "0")).hasValue(0.0);
    assertThat(scrape.text())
        .contains("# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).")
        .contains("# TYPE DCGM_FI_DEV_GPU_TEMP gauge")
        .contains("# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).")
        .contains("# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).")
        .contains("# HELP DCGM_FI_DEV_MEM_COPY_UTIL Memory utilization (in %).")
        .contains("# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).")
        .contains("# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).")
        .contains("# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.");
  }

  @Test
  void theRestOfDcgmExportersDefaultSetComesThroughTheBinding() {
    open(NvmlScenarios.h100s(2), inventory(2));
    bind(id -> Optional.empty());
    fake.control().acceld_fake_set_ecc(1, 7, 2);
    sampler.sampleNow();

    Exposition scrape = scrape();
    assertThat(scrape.value("DCGM_FI_DEV_SM_CLOCK", "gpu", "0")).hasValue(1980.0);
    assertThat(scrape.value("DCGM_FI_DEV_SM_CLOCK", "gpu", "1")).hasValue(1979.0);
    assertThat(scrape.value("DCGM_FI_DEV_MEM_CLOCK", "gpu", "1")).hasValue(2619.0);
    // mJ, as NVML and DCGM count it; a 64-bit value survives the binding
    assertThat(scrape.value("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "gpu", "1"))
        .hasValue(5_000_000_001.0);
    assertThat(scrape.value("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "gpu", "1")).hasValue(4.0);
    assertThat(scrape.value("DCGM_FI_DEV_ENC_UTIL", "gpu", "1")).hasValue(1.0);
    assertThat(scrape.value("DCGM_FI_DEV_DEC_UTIL", "gpu", "1")).hasValue(3.0);
    assertThat(scrape.value("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "gpu", "1")).hasValue(3.0);
    assertThat(scrape.value("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "gpu", "1")).hasValue(1.0);
    assertThat(scrape.value("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gpu", "1")).hasValue(0.0);
    assertThat(scrape.value("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "gpu", "1")).hasValue(7.0);
    assertThat(scrape.value("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "gpu", "1")).hasValue(2.0);
    assertThat(scrape.value("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "gpu", "1")).hasValue(7.0);
    assertThat(scrape.value("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "gpu", "0")).hasValue(0.0);
    // nvmlDeviceGetFieldValues: one call, each field decoded from its own value type
    assertThat(scrape.value("DCGM_FI_DEV_MEMORY_TEMP", "gpu", "1")).hasValue(51.0);
    assertThat(scrape.value("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "gpu", "1"))
        .hasValue(1.0);
    assertThat(scrape.value("DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "gpu", "1"))
        .hasValue(2.0);
    assertThat(scrape.value("DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "gpu", "1"))
        .hasValue(3.0);
    assertThat(scrape.value("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "gpu", "1"))
        .hasValue(0.0);
    // every new series carries the same dcgm labels as the first seven
    assertThat(scrape.series("DCGM_FI_DEV_SM_CLOCK"))
        .filteredOn(s -> s.labels().get("gpu").equals("1"))
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.labels())
                    .containsEntry("UUID", NvmlScenarios.uuid(1))
                    .containsEntry("device", "nvidia1")
                    .containsEntry("modelName", MODEL)
                    .containsEntry("Hostname", "node-1"));
    assertThat(scrape.text())
        .contains("# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).")
        .contains("# HELP DCGM_FI_DEV_MEM_CLOCK Memory clock frequency (in MHz).")
        .contains(
            "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in"
                + " mJ).")
        .contains("# HELP DCGM_FI_DEV_PCIE_REPLAY_COUNTER Total number of PCIe retries.")
        .contains("# HELP DCGM_FI_DEV_ENC_UTIL Encoder utilization (in %).")
        .contains("# HELP DCGM_FI_DEV_DEC_UTIL Decoder utilization (in %).")
        .contains(
            "# HELP DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS Number of remapped rows for"
                + " uncorrectable errors")
        .contains(
            "# HELP DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS Number of remapped rows for correctable"
                + " errors")
        .contains("# HELP DCGM_FI_DEV_ROW_REMAP_FAILURE Whether remapping of rows has failed")
        .contains(
            "# HELP DCGM_FI_DEV_ECC_SBE_VOL_TOTAL Total number of single-bit volatile ECC errors.")
        .contains(
            "# HELP DCGM_FI_DEV_ECC_DBE_AGG_TOTAL Total number of double-bit persistent ECC"
                + " errors.")
        .contains("# HELP DCGM_FI_DEV_MEMORY_TEMP Memory temperature (in C).")
        .contains(
            "# HELP DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL Total number of NVLink"
                + " flow-control CRC errors.")
        .contains(
            "# HELP DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL Total number of NVLink retries.")
        .contains("# TYPE DCGM_FI_DEV_SM_CLOCK gauge");
  }

  @Test
  void aFailedRowRemapAndAPendingOneAreReported() {
    NvmlScenario scenario =
        NvmlScenario.empty().gpu(NvmlScenarios.h100(0).remappedRows(512, 9, true, true));
    open(scenario, inventory(1));
    bind(id -> Optional.empty());
    sampler.sampleNow();

    Exposition scrape = scrape();
    assertThat(scrape.value("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gpu", "0")).hasValue(1.0);
    assertThat(scrape.value("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "gpu", "0")).hasValue(512.0);
    assertThat(sampler.latest().gpus().get(0).extended().remappedRows())
        .hasValueSatisfying(r -> assertThat(r.pending()).isTrue());
  }

  @Test
  void fieldsAGpuMarksUnsupportedAreLeftOutForThatGpuOnly() {
    NvmlScenario scenario =
        NvmlScenario.empty()
            .gpu(NvmlScenarios.h100(0))
            .gpu(
                NvmlFaults.ecc(
                    NvmlScenarios.h100(1)
                        .unsupported("smclock")
                        .unsupported("memclock")
                        .unsupported("energy")
                        .unsupported("pcie-replays")
                        .unsupported("enc")
                        .unsupported("dec")
                        .unsupported("remapped")
                        .unsupported("memtemp")
                        .unsupported("nvlink-errors"),
                    false));
    try (LogCapture logs = LogCapture.of(GpuTelemetrySampler.class)) {
      open(scenario, inventory(2));
      bind(id -> Optional.empty());
      sampler.sampleNow();

      Exposition scrape = scrape();
      for (String family :
          List.of(
              "DCGM_FI_DEV_SM_CLOCK",
              "DCGM_FI_DEV_MEM_CLOCK",
              "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
              "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
              "DCGM_FI_DEV_ENC_UTIL",
              "DCGM_FI_DEV_DEC_UTIL",
              "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
              "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
              "DCGM_FI_DEV_ROW_REMAP_FAILURE",
              "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
              "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
              "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
              "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
              "DCGM_FI_DEV_MEMORY_TEMP",
              "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
              "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
              "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
              "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL")) {
        assertThat(scrape.series(family))
            .as(family)
            .extracting(s -> s.labels().get("gpu"))
            .containsExactly("0");
      }
      // NOT_SUPPORTED is the GPU's nature, not trouble
      assertThat(logs.warnings()).isEmpty();
    }
  }

  @Test
  void aDriverWithoutRowRemappingLosesOnlyThoseSeries() {
    fake = NvmlDouble.createOldDriver(dir, NvmlScenarios.h100s(1));
    nvml = fake.open();
    sampler = new GpuTelemetrySampler(nvml, () -> inventory(1), Duration.ofSeconds(10));
    bind(id -> Optional.empty());
    sampler.sampleNow();

    Exposition scrape = scrape();
    assertThat(scrape.series("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS")).isEmpty();
    assertThat(scrape.series("DCGM_FI_DEV_ROW_REMAP_FAILURE")).isEmpty();
    assertThat(scrape.value("DCGM_FI_DEV_SM_CLOCK", "gpu", "0")).hasValue(1980.0);
    assertThat(scrape.value("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "gpu", "0"))
        .hasValue(5_000_000_000.0);
  }

  @Test
  void xidGaugeShowsTheLastXidOfEachGpu() {
    open(NvmlScenarios.h100s(2), inventory(2));
    bind(id -> Optional.empty());
    sampler.sampleNow();

    xids.record("nvidia.com/gpu", NvmlScenarios.uuid(1), 13);
    xids.record("nvidia.com/gpu", NvmlScenarios.uuid(1), 79);

    Exposition scrape = scrape();
    assertThat(scrape.value("DCGM_FI_DEV_XID_ERRORS", "gpu", "1")).hasValue(79.0);
    assertThat(scrape.value("DCGM_FI_DEV_XID_ERRORS", "gpu", "0")).hasValue(0.0);
  }

  @Test
  void aLostGpuDropsOutWithoutAffectingTheOtherAndIsLoggedOnce() {
    open(NvmlScenarios.h100s(2), inventory(2));
    bind(id -> Optional.empty());
    sampler.sampleNow();

    try (LogCapture logs = LogCapture.of(GpuTelemetrySampler.class)) {
      fake.control().acceld_fake_set_lost(1, 1);
      sampler.sampleNow();
      sampler.sampleNow();

      assertThat(sampler.latest().gpus())
          .extracting(GpuTelemetry::uuid)
          .containsExactly(NvmlScenarios.uuid(0));
      Exposition scrape = scrape();
      for (String family : List.of("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_FB_USED")) {
        assertThat(scrape.series(family))
            .extracting(s -> s.labels().get("gpu"))
            .containsExactly("0");
      }
      assertThat(scrape.value("DCGM_FI_DEV_GPU_TEMP", "gpu", "0")).hasValue(40.0);
      assertThat(logs.warnings())
          .singleElement()
          .asString()
          .contains(NvmlScenarios.uuid(1))
          .contains("lost");

      fake.control().acceld_fake_set_lost(1, 0);
      sampler.sampleNow();
      assertThat(sampler.latest().gpus()).hasSize(2);
      assertThat(logs.warnings()).hasSize(1);
    }
  }

  @Test
  void readingsAGpuDoesNotSupportAreLeftOutQuietly() {
    // telemetry unset in the scenario means NOT_SUPPORTED; memory has a default
    NvmlScenario scenario =
        NvmlScenarios.h100s(1)
            .gpu(NvmlScenario.Gpu.of(NvmlScenarios.uuid(1), NvmlScenarios.pciAddress(1)));
    try (LogCapture logs = LogCapture.of(GpuTelemetrySampler.class)) {
      open(scenario, inventory(2));
      bind(id -> Optional.empty());
      sampler.sampleNow();

      Exposition scrape = scrape();
      assertThat(scrape.series("DCGM_FI_DEV_GPU_TEMP"))
          .extracting(s -> s.labels().get("gpu"))
          .containsExactly("0");
      assertThat(scrape.series("DCGM_FI_DEV_POWER_USAGE")).hasSize(1);
      assertThat(scrape.series("DCGM_FI_DEV_GPU_UTIL")).hasSize(1);
      assertThat(scrape.series("DCGM_FI_DEV_FB_FREE")).hasSize(2);
      assertThat(logs.warnings()).isEmpty();
    }
  }

  @Test
  void aScrapeServesTheLastSampleWithoutCallingNvml() {
    open(NvmlScenarios.h100s(2), inventory(2));
    bind(id -> Optional.empty());
    TelemetrySample sample = sampler.sampleNow();
    long calls = fake.control().acceld_fake_call_count();

    Exposition first = scrape();
    Exposition second = scrape();
    registry.scrape("application/openmetrics-text; version=1.0.0; charset=utf-8");

    assertThat(fake.control().acceld_fake_call_count()).isEqualTo(calls);
    assertThat(sampler.latest()).isSameAs(sample);
    assertThat(first.series("DCGM_FI_DEV_GPU_TEMP"))
        .isEqualTo(second.series("DCGM_FI_DEV_GPU_TEMP"));
  }

  @Test
  void onlyNvidiaGpusWithNvmlDetailsAreSampled() {
    List<Device> devices = new ArrayList<>(inventory(1).devices());
    devices.add(TestDevices.amd(0, 0));
    devices.add(TestDevices.nvidiaWithoutNvml(5));
    open(NvmlScenarios.h100s(1), TestDevices.inventory(devices));

    TelemetrySample sample = sampler.sampleNow();

    assertThat(sample.gpus()).extracting(GpuTelemetry::uuid).containsExactly(NvmlScenarios.uuid(0));
  }

  @Test
  void theSamplerRunsOnItsOwnThreadAndOutlivesAFailingPass() {
    AtomicInteger passes = new AtomicInteger();
    Inventory two = inventory(2);
    Supplier<Inventory> flaky =
        () -> {
          if (passes.incrementAndGet() == 1) {
            throw new IllegalStateException("inventory not ready");
          }
          return two;
        };
    fake = NvmlDouble.create(dir, NvmlScenarios.h100s(2));
    nvml = fake.open();
    sampler = new GpuTelemetrySampler(nvml, flaky, Duration.ofMillis(20));
    sampler.start();

    Eventually.await("a sample after the failed pass", () -> sampler.latest().gpus().size() == 2);
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .contains("acceld-telemetry-1");

    fake.control().acceld_fake_set_lost(0, 1);
    Eventually.await("GPU 0 left out", () -> sampler.latest().gpus().size() == 1);
    fake.control().acceld_fake_set_lost(0, 0);
    Eventually.await("GPU 0 back", () -> sampler.latest().gpus().size() == 2);
  }

  private void open(NvmlScenario scenario, Inventory inventory) {
    fake = NvmlDouble.create(dir, scenario);
    nvml = fake.open();
    sampler = new GpuTelemetrySampler(nvml, () -> inventory, Duration.ofSeconds(10));
  }

  private void bind(java.util.function.Function<String, Optional<Holder.KubeletPod>> owners) {
    new DcgmCollector(
            sampler::latest, xids, owners, "node-1", DcgmCollector.LabelNames.DCGM_EXPORTER)
        .bindTo(registry);
    xids.bindTo(registry);
  }

  private Exposition scrape() {
    return Exposition.parse(registry.scrape());
  }

  /** The first {@code count} GPUs of {@link NvmlScenarios#h100s} as discovery reports them. */
  static Inventory inventory(int count) {
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      devices.add(device(i));
    }
    return TestDevices.inventory(devices);
  }

  static Device device(int index) {
    String uuid = NvmlScenarios.uuid(index);
    return new Device(
        uuid,
        "nvidia.com/gpu",
        0x10de,
        0x2330,
        MODEL,
        NvmlScenarios.pciAddress(index),
        index / 4,
        Optional.of("nvidia"),
        List.of("nvidia" + index, "nvidiactl"),
        Health.HEALTHY,
        Optional.empty(),
        Optional.of(
            new NvidiaDetails(
                uuid,
                index,
                index,
                NvmlScenarios.H100_MEMORY,
                List.of(),
                Optional.of(false),
                Optional.of("9.0"))));
  }
}
