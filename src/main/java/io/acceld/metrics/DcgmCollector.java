package io.acceld.metrics;

import io.acceld.ledger.Holder;
import io.acceld.nvml.NvmlField;
import io.acceld.nvml.NvmlRemappedRows;
import io.acceld.telemetry.GpuTelemetry;
import io.acceld.telemetry.TelemetrySample;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Renders the last {@link TelemetrySample} under dcgm-exporter's metric names, units and labels, so
 * its Grafana dashboards and alerts work unchanged on nodes without DCGM:
 *
 * <pre>
 * DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-…",pci_bus_id="00000000:3B:00.0",device="nvidia0",
 *                      modelName="NVIDIA H100 80GB HBM3",Hostname="node-1",
 *                      pod="…",namespace="…",container="…"} 41
 * </pre>
 *
 * Power is in W, framebuffer in MiB (whole MiB, as DCGM reports), temperature in °C, utilisation in
 * %, clocks in MHz, energy in mJ. {@code DCGM_FI_DEV_XID_ERRORS} is the last XID of the GPU (0 if
 * none). The pod labels are present only while a container holds the GPU. A scrape reads the sample
 * and never calls NVML. A field a GPU or driver does not support has no series for that GPU (never
 * a 0 that would read as "healthy").
 *
 * <p>Every family is typed {@code gauge}, also the ones dcgm-exporter declares {@code counter}
 * (energy, PCIe replays, remapped rows, ECC totals). The Prometheus client renders a counter as
 * {@code <name>_total}, which would rename {@code DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION} and break
 * every dashboard and alert that queries it; the exact name matters more than the declared type,
 * and {@code rate()} and {@code increase()} work on either.
 */
public final class DcgmCollector implements MeterBinder, MultiCollector {
  static final String GPU_TEMP = "DCGM_FI_DEV_GPU_TEMP";
  static final String POWER_USAGE = "DCGM_FI_DEV_POWER_USAGE";
  static final String GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL";
  static final String MEM_COPY_UTIL = "DCGM_FI_DEV_MEM_COPY_UTIL";
  static final String FB_USED = "DCGM_FI_DEV_FB_USED";
  static final String FB_FREE = "DCGM_FI_DEV_FB_FREE";
  static final String XID_ERRORS = "DCGM_FI_DEV_XID_ERRORS";
  static final String SM_CLOCK = "DCGM_FI_DEV_SM_CLOCK";
  static final String MEM_CLOCK = "DCGM_FI_DEV_MEM_CLOCK";
  static final String TOTAL_ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION";
  static final String PCIE_REPLAY = "DCGM_FI_DEV_PCIE_REPLAY_COUNTER";
  static final String ENC_UTIL = "DCGM_FI_DEV_ENC_UTIL";
  static final String DEC_UTIL = "DCGM_FI_DEV_DEC_UTIL";
  static final String UNCORRECTABLE_REMAPPED_ROWS = "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS";
  static final String CORRECTABLE_REMAPPED_ROWS = "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS";
  static final String ROW_REMAP_FAILURE = "DCGM_FI_DEV_ROW_REMAP_FAILURE";
  static final String ECC_SBE_VOL = "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL";
  static final String ECC_DBE_VOL = "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL";
  static final String ECC_SBE_AGG = "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL";
  static final String ECC_DBE_AGG = "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL";
  static final String MEMORY_TEMP = "DCGM_FI_DEV_MEMORY_TEMP";
  static final String NVLINK_CRC_FLIT = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL";
  static final String NVLINK_CRC_DATA = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL";
  static final String NVLINK_REPLAY = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL";
  static final String NVLINK_RECOVERY = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL";

  private static final long MIB = 1L << 20;

  /**
   * The two label names that differ between conventions. dcgm-exporter's {@code modelName} is
   * camelCase, which {@code promtool check metrics} reports as a lint problem.
   *
   * @param lintClean whether the whole rendering must pass promtool's lint: then the one
   *     dcgm-exporter family whose own name fails it ({@code DCGM_FI_DEV_PCIE_REPLAY_COUNTER},
   *     "name should not include type 'counter'") is left out rather than renamed, since a renamed
   *     series would match no dashboard anyway
   */
  public record LabelNames(String modelName, String hostname, boolean lintClean) {
    /** What dcgm-exporter releases emit; dashboards and queries written for it keep working. */
    public static final LabelNames DCGM_EXPORTER = new LabelNames("modelName", "Hostname", false);

    /** Passes promtool's lint: {@code model_name}; {@code Hostname} has no lint problem. */
    public static final LabelNames PROMTOOL_CLEAN = new LabelNames("model_name", "Hostname", true);
  }

  /** dcgm-exporter names that promtool's lint rejects. */
  private static final Set<String> LINT_FAILING_NAMES = Set.of(PCIE_REPLAY);

  /**
   * One gauge family: its name, help (with the unit, word for word dcgm-exporter's {@code
   * etc/default-counters.csv}) and value.
   */
  private record Field(String name, String help, Function<GpuTelemetry, OptionalDouble> value) {}

  private final Supplier<TelemetrySample> telemetry;
  private final XidMetrics xids;
  private final Function<String, Optional<Holder.KubeletPod>> owners;
  private final String hostname;
  private final LabelNames labelNames;
  private final List<Field> fields;

  public DcgmCollector(
      Supplier<TelemetrySample> telemetry,
      XidMetrics xids,
      Function<String, Optional<Holder.KubeletPod>> owners,
      String hostname,
      LabelNames labelNames) {
    this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
    this.xids = Objects.requireNonNull(xids, "xids");
    this.owners = Objects.requireNonNull(owners, "owners");
    this.hostname = Objects.requireNonNull(hostname, "hostname");
    this.labelNames = Objects.requireNonNull(labelNames, "labelNames");
    this.fields =
        Stream.of(
                new Field(GPU_TEMP, "GPU temperature (in C).", g -> real(g.temperatureCelsius())),
                new Field(POWER_USAGE, "Power draw (in W).", g -> watts(g.powerMilliwatts())),
                new Field(
                    GPU_UTIL, "GPU utilization (in %).", g -> real(g.gpuUtilizationPercent())),
                new Field(
                    MEM_COPY_UTIL,
                    "Memory utilization (in %).",
                    g -> real(g.memoryUtilizationPercent())),
                new Field(
                    FB_FREE,
                    "Framebuffer memory free (in MiB).",
                    g -> wholeMib(g.framebufferFreeBytes())),
                new Field(
                    FB_USED,
                    "Framebuffer memory used (in MiB).",
                    g -> wholeMib(g.framebufferUsedBytes())),
                new Field(
                    XID_ERRORS,
                    "Value of the last XID error encountered.",
                    g -> OptionalDouble.of(xids.lastXid(g.deviceId()).orElse(0))),
                new Field(
                    SM_CLOCK, "SM clock frequency (in MHz).", g -> real(g.extended().smClockMhz())),
                new Field(
                    MEM_CLOCK,
                    "Memory clock frequency (in MHz).",
                    g -> real(g.extended().memoryClockMhz())),
                new Field(
                    TOTAL_ENERGY,
                    "Total energy consumption since boot (in mJ).",
                    g -> real(g.extended().totalEnergyMillijoules())),
                new Field(
                    PCIE_REPLAY,
                    "Total number of PCIe retries.",
                    g -> real(g.extended().pcieReplays())),
                new Field(
                    ENC_UTIL,
                    "Encoder utilization (in %).",
                    g -> real(g.extended().encoderUtilizationPercent())),
                new Field(
                    DEC_UTIL,
                    "Decoder utilization (in %).",
                    g -> real(g.extended().decoderUtilizationPercent())),
                new Field(
                    UNCORRECTABLE_REMAPPED_ROWS,
                    "Number of remapped rows for uncorrectable errors",
                    g -> rows(g, r -> (double) r.uncorrectable())),
                new Field(
                    CORRECTABLE_REMAPPED_ROWS,
                    "Number of remapped rows for correctable errors",
                    g -> rows(g, r -> (double) r.correctable())),
                new Field(
                    ROW_REMAP_FAILURE,
                    "Whether remapping of rows has failed",
                    g -> rows(g, r -> r.failed() ? 1.0 : 0.0)),
                new Field(
                    ECC_SBE_VOL,
                    "Total number of single-bit volatile ECC errors.",
                    g -> real(g.extended().eccCorrectedVolatile())),
                new Field(
                    ECC_DBE_VOL,
                    "Total number of double-bit volatile ECC errors.",
                    g -> real(g.extended().eccUncorrectedVolatile())),
                new Field(
                    ECC_SBE_AGG,
                    "Total number of single-bit persistent ECC errors.",
                    g -> real(g.extended().eccCorrectedAggregate())),
                new Field(
                    ECC_DBE_AGG,
                    "Total number of double-bit persistent ECC errors.",
                    g -> real(g.extended().eccUncorrectedAggregate())),
                new Field(
                    MEMORY_TEMP,
                    "Memory temperature (in C).",
                    g -> field(g, NvmlField.MEMORY_TEMP)),
                new Field(
                    NVLINK_CRC_FLIT,
                    "Total number of NVLink flow-control CRC errors.",
                    g -> field(g, NvmlField.NVLINK_CRC_FLIT_ERRORS)),
                new Field(
                    NVLINK_CRC_DATA,
                    "Total number of NVLink data CRC errors.",
                    g -> field(g, NvmlField.NVLINK_CRC_DATA_ERRORS)),
                new Field(
                    NVLINK_REPLAY,
                    "Total number of NVLink retries.",
                    g -> field(g, NvmlField.NVLINK_REPLAY_ERRORS)),
                new Field(
                    NVLINK_RECOVERY,
                    "Total number of NVLink recovery errors.",
                    g -> field(g, NvmlField.NVLINK_RECOVERY_ERRORS)))
            .filter(f -> !(labelNames.lintClean() && LINT_FAILING_NAMES.contains(f.name())))
            .toList();
  }

  private static OptionalDouble field(GpuTelemetry gpu, NvmlField field) {
    Double value = gpu.extended().fieldValues().get(field);
    return value == null ? OptionalDouble.empty() : OptionalDouble.of(value);
  }

  private static OptionalDouble rows(
      GpuTelemetry gpu, java.util.function.ToDoubleFunction<NvmlRemappedRows> value) {
    return gpu.extended()
        .remappedRows()
        .map(r -> OptionalDouble.of(value.applyAsDouble(r)))
        .orElse(OptionalDouble.empty());
  }

  private static OptionalDouble real(OptionalLong value) {
    return value.isPresent() ? OptionalDouble.of(value.getAsLong()) : OptionalDouble.empty();
  }

  private static OptionalDouble real(OptionalInt value) {
    return value.isPresent() ? OptionalDouble.of(value.getAsInt()) : OptionalDouble.empty();
  }

  private static OptionalDouble watts(OptionalLong milliwatts) {
    return milliwatts.isPresent()
        ? OptionalDouble.of(milliwatts.getAsLong() / 1000.0)
        : OptionalDouble.empty();
  }

  /** DCGM's framebuffer fields are whole MiB. */
  private static OptionalDouble wholeMib(OptionalLong bytes) {
    return bytes.isPresent() ? OptionalDouble.of(bytes.getAsLong() / MIB) : OptionalDouble.empty();
  }

  /** Registers on the registry's Prometheus registry; needs a PrometheusMeterRegistry. */
  @Override
  public void bindTo(MeterRegistry registry) {
    Collectors.register(registry, this);
  }

  @Override
  public MetricSnapshots collect() {
    List<GpuTelemetry> gpus = telemetry.get().gpus();
    List<Labels> labels = new ArrayList<>(gpus.size());
    for (GpuTelemetry gpu : gpus) {
      labels.add(labels(gpu));
    }
    List<GaugeSnapshot> snapshots = new ArrayList<>(fields.size());
    for (Field field : fields) {
      GaugeSnapshot.Builder family = GaugeSnapshot.builder().name(field.name()).help(field.help());
      for (int i = 0; i < gpus.size(); i++) {
        OptionalDouble value = field.value().apply(gpus.get(i));
        if (value.isPresent()) {
          family.dataPoint(
              GaugeDataPointSnapshot.builder()
                  .labels(labels.get(i))
                  .value(value.getAsDouble())
                  .build());
        }
      }
      snapshots.add(family.build());
    }
    return new MetricSnapshots(List.copyOf(snapshots));
  }

  private Labels labels(GpuTelemetry gpu) {
    String index = Integer.toString(gpu.index());
    Labels base =
        Labels.of(
            "gpu",
            index,
            "UUID",
            gpu.uuid(),
            "pci_bus_id",
            gpu.pciBusId(),
            "device",
            "nvidia" + index,
            labelNames.modelName(),
            gpu.modelName(),
            labelNames.hostname(),
            hostname);
    if (gpu.mig().isPresent()) {
      // dcgm-exporter's GPU-instance series: the parent's labels plus the instance's.
      base =
          base.merge(
              Labels.of(
                  "GPU_I_ID",
                  Integer.toString(gpu.mig().get().gpuInstanceId()),
                  "GPU_I_PROFILE",
                  gpu.mig().get().profile()));
    }
    Optional<Holder.KubeletPod> owner = owners.apply(gpu.deviceId());
    Labels labels = base;
    return owner
        .map(
            p ->
                labels.merge(
                    Labels.of(
                        "pod", p.pod(), "namespace", p.namespace(), "container", p.container())))
        .orElse(labels);
  }

  @Override
  public List<String> getPrometheusNames() {
    return fields.stream().map(Field::name).toList();
  }
}
