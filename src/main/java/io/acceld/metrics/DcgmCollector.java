package io.acceld.metrics;

import io.acceld.ledger.Holder;
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
import java.util.function.Function;
import java.util.function.Supplier;

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
 * %. {@code DCGM_FI_DEV_XID_ERRORS} is the last XID of the GPU (0 if none). The pod labels are
 * present only while a container holds the GPU. A scrape reads the sample and never calls NVML.
 */
public final class DcgmCollector implements MeterBinder, MultiCollector {
  static final String GPU_TEMP = "DCGM_FI_DEV_GPU_TEMP";
  static final String POWER_USAGE = "DCGM_FI_DEV_POWER_USAGE";
  static final String GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL";
  static final String MEM_COPY_UTIL = "DCGM_FI_DEV_MEM_COPY_UTIL";
  static final String FB_USED = "DCGM_FI_DEV_FB_USED";
  static final String FB_FREE = "DCGM_FI_DEV_FB_FREE";
  static final String XID_ERRORS = "DCGM_FI_DEV_XID_ERRORS";

  private static final long MIB = 1L << 20;

  /**
   * The two label names that differ between conventions. dcgm-exporter's {@code modelName} is
   * camelCase, which {@code promtool check metrics} reports as a lint problem.
   */
  public record LabelNames(String modelName, String hostname) {
    /** What dcgm-exporter releases emit; dashboards and queries written for it keep working. */
    public static final LabelNames DCGM_EXPORTER = new LabelNames("modelName", "Hostname");

    /** Passes promtool's lint: {@code model_name}; {@code Hostname} has no lint problem. */
    public static final LabelNames PROMTOOL_CLEAN = new LabelNames("model_name", "Hostname");
  }

  /** One gauge family: its name, help (with the unit, as dcgm-exporter words it) and value. */
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
        List.of(
            new Field(GPU_TEMP, "GPU temperature (in C).", g -> real(g.temperatureCelsius())),
            new Field(POWER_USAGE, "Power draw (in W).", g -> watts(g.powerMilliwatts())),
            new Field(GPU_UTIL, "GPU utilization (in %).", g -> real(g.gpuUtilizationPercent())),
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
                g -> OptionalDouble.of(xids.lastXid(g.deviceId()).orElse(0))));
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
    Optional<Holder.KubeletPod> owner = owners.apply(gpu.deviceId());
    return owner
        .map(
            p ->
                base.merge(
                    Labels.of(
                        "pod", p.pod(), "namespace", p.namespace(), "container", p.container())))
        .orElse(base);
  }

  @Override
  public List<String> getPrometheusNames() {
    return fields.stream().map(Field::name).toList();
  }
}
