package io.acceld.metrics;

import io.acceld.config.DeviceExpectation;
import io.acceld.health.HealthEvents;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.ledger.Availability;
import io.acceld.ledger.CheckpointWriter;
import io.acceld.ledger.Holder;
import io.acceld.nvml.NvmlCallStats;
import io.acceld.telemetry.TelemetrySample;
import io.acceld.util.BuildInfo;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Everything the agent exports, in one object to wire: creates the {@link PrometheusMeterRegistry},
 * binds the JVM set, device health, XID, kubelet, gRPC, NVML and dcgm-exporter views to it, and
 * hands out the parts other components feed.
 *
 * <pre>{@code
 * AgentMetrics metrics = AgentMetrics.builder()
 *     .hostname(NodeName.resolve(config.get(Settings.NODE_NAME), config.environment(), procRoot))
 *     .nvmlCallStats(() -> nvml.map(Nvml::callStats))
 *     .telemetry(sampler::latest)
 *     .podOwners(id -> ...the ledger's pod lease of id...)
 *     .ledger(ledger::current, Optional.of(checkpointWriter))
 *     .build();
 * metrics.deviceHealth().follow(agent.inventory());
 * // kubelet events: metrics.kubelet(); ServerInterceptor: metrics.grpc(); XIDs: metrics.xids()
 * MetricsServer.start(address, metrics.registry(), alive, ready);
 * }</pre>
 */
public final class AgentMetrics implements AutoCloseable {
  private final PrometheusMeterRegistry registry;
  private final JvmMetrics jvm = new JvmMetrics();
  private final DeviceHealthMetrics deviceHealth = new DeviceHealthMetrics();
  private final XidMetrics xids = new XidMetrics();
  private final EccMetrics ecc = new EccMetrics();
  private final KubeletMetrics kubelet = new KubeletMetrics();
  private final GrpcServerMetrics grpc = new GrpcServerMetrics();

  private AgentMetrics(Builder b) {
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    JvmMetrics.filterOn(registry); // first: the filter must precede every meter
    deviceHealth.bindTo(registry);
    xids.bindTo(registry);
    ecc.bindTo(registry);
    kubelet.bindTo(registry);
    grpc.bindTo(registry);
    new NvmlMetrics(b.nvmlCallStats).bindTo(registry);
    new DcgmCollector(b.telemetry, xids, b.podOwners, b.hostname, b.dcgmLabels).bindTo(registry);
    new LedgerMetrics(b.ledger, b.checkpoint).bindTo(registry);
    new ExpectedDeviceMetrics(b.expectations, b.inventory).bindTo(registry);
    new BuildInfoMetrics(b.build, BuildInfo.javaVersion()).bindTo(registry);
  }

  /** What health monitoring reports that is worth counting: XIDs and corrected ECC errors. */
  public HealthEvents healthEvents() {
    return new HealthEvents() {
      @Override
      public void xid(Device device, int xid, boolean ignored) {
        xids.record(device.resource(), device.id(), xid);
      }

      @Override
      public void singleBitEcc(Device device) {
        ecc.recordCorrected(device.resource(), device.id());
      }
    };
  }

  public static Builder builder() {
    return new Builder();
  }

  /** What {@code /metrics} serves. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Subscribe it to the inventory with {@link DeviceHealthMetrics#follow}. */
  public DeviceHealthMetrics deviceHealth() {
    return deviceHealth;
  }

  /** Feed it each XID event; the DCGM XID gauge reads the last one per GPU from it. */
  public XidMetrics xids() {
    return xids;
  }

  /** Feed it each corrected ECC event. */
  public EccMetrics ecc() {
    return ecc;
  }

  /**
   * Counts what the kubelet side reports (allocations, streams, registrations). Metrics does not
   * implement the kubelet's event interface: publishers never import each other, so the composition
   * root adapts one to the other.
   */
  public KubeletMetrics kubelet() {
    return kubelet;
  }

  /** The {@link io.grpc.ServerInterceptor} to add to the kubelet-facing gRPC servers. */
  public GrpcServerMetrics grpc() {
    return grpc;
  }

  /**
   * Adds the JVM and process series (memory, GC, threads, classes, CPU, uptime). Separate from the
   * build so that a start can do it after what is on the way to Register; once is enough.
   */
  public void bindJvm() {
    jvm.bindMetersTo(registry);
  }

  /** Stops the GC listener and closes the registry. */
  @Override
  public void close() {
    jvm.close();
    registry.close();
  }

  /** Every part is optional; the defaults suit a node without NVML or Kubernetes. */
  public static final class Builder {
    private String hostname;
    private Supplier<Optional<NvmlCallStats>> nvmlCallStats = Optional::empty;
    private Supplier<TelemetrySample> telemetry = () -> TelemetrySample.EMPTY;
    private Function<String, Optional<Holder.KubeletPod>> podOwners = id -> Optional.empty();
    private Supplier<Availability> ledger = () -> Availability.EMPTY;
    private Optional<CheckpointWriter> checkpoint = Optional.empty();
    private DcgmCollector.LabelNames dcgmLabels = DcgmCollector.LabelNames.DCGM_EXPORTER;
    private List<DeviceExpectation> expectations = List.of();
    private Supplier<Inventory> inventory = () -> Inventory.EMPTY;
    private BuildInfo build = BuildInfo.current();

    private Builder() {}

    /** The build {@code acceld_build_info} describes; default: this jar's. */
    public Builder buildInfo(BuildInfo build) {
      this.build = Objects.requireNonNull(build, "build");
      return this;
    }

    /**
     * What {@code --expect-devices} asks for and the inventory to count against; default: no
     * expectations, no {@code acceld_expected_devices} series.
     */
    public Builder expectedDevices(
        List<DeviceExpectation> expectations, Supplier<Inventory> inventory) {
      this.expectations = List.copyOf(expectations);
      this.inventory = Objects.requireNonNull(inventory, "inventory");
      return this;
    }

    /** The {@code Hostname} label of GPU series, usually {@link NodeName#resolve}; required. */
    public Builder hostname(String hostname) {
      this.hostname = Objects.requireNonNull(hostname, "hostname");
      return this;
    }

    /** NVML's call counters; empty while NVML is not loaded (the default). */
    public Builder nvmlCallStats(Supplier<Optional<NvmlCallStats>> stats) {
      this.nvmlCallStats = Objects.requireNonNull(stats, "stats");
      return this;
    }

    /** Usually {@code sampler::latest}; default: no GPU telemetry. */
    public Builder telemetry(Supplier<TelemetrySample> telemetry) {
      this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
      return this;
    }

    /** The pod holding a device, from the ledger; default: no pod labels. */
    public Builder podOwners(Function<String, Optional<Holder.KubeletPod>> owners) {
      this.podOwners = Objects.requireNonNull(owners, "owners");
      return this;
    }

    /** The ledger's current snapshot and its checkpoint writer; default: no leases. */
    public Builder ledger(Supplier<Availability> ledger, Optional<CheckpointWriter> checkpoint) {
      this.ledger = Objects.requireNonNull(ledger, "ledger");
      this.checkpoint = Objects.requireNonNull(checkpoint, "checkpoint");
      return this;
    }

    /**
     * dcgm-exporter's label names (default) or {@link DcgmCollector.LabelNames#PROMTOOL_CLEAN},
     * which renames {@code modelName} so that {@code promtool check metrics} reports nothing.
     */
    public Builder dcgmLabels(DcgmCollector.LabelNames labels) {
      this.dcgmLabels = Objects.requireNonNull(labels, "labels");
      return this;
    }

    public AgentMetrics build() {
      if (hostname == null) {
        throw new IllegalStateException("the Hostname label needs a value: call hostname(...)");
      }
      return new AgentMetrics(this);
    }
  }
}
