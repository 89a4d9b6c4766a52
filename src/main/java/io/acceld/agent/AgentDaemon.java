package io.acceld.agent;

import io.acceld.allocation.RuntimeSpecs;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigException;
import io.acceld.config.DcgmModelLabel;
import io.acceld.config.HostPort;
import io.acceld.config.Settings;
import io.acceld.dra.DraPublisher;
import io.acceld.inventory.DeviceJson;
import io.acceld.inventory.InventoryStore;
import io.acceld.kubelet.KubeletPublisher;
import io.acceld.kubelet.PluginEvents;
import io.acceld.kubelet.podresources.PodResourcesPoller;
import io.acceld.labels.LabelInputs;
import io.acceld.labels.NodeFeatureSink;
import io.acceld.labels.NodeLabels;
import io.acceld.labels.NodeLabelsPublisher;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.LedgerStorage;
import io.acceld.mesos.ContainmentUnavailableException;
import io.acceld.mesos.MesosBridge;
import io.acceld.mesos.http.JdkHttpServerProperties;
import io.acceld.metrics.AgentMetrics;
import io.acceld.metrics.DcgmCollector;
import io.acceld.metrics.KubeletMetrics;
import io.acceld.metrics.MetricsAccess;
import io.acceld.metrics.MetricsServer;
import io.acceld.metrics.NodeName;
import io.acceld.nvml.NvmlLoader;
import io.acceld.systemd.SystemdNotifier;
import io.acceld.telemetry.GpuTelemetrySampler;
import io.acceld.telemetry.TelemetrySample;
import io.acceld.transport.TransportWarmUp;
import io.acceld.transport.UnixGrpc;
import io.acceld.util.BuildInfo;
import io.acceld.util.FileModeMask;
import io.acceld.util.OperatorError;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.BindException;
import java.net.SocketException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything {@code acceld run} runs, composed around the pipeline: the inventory store and the
 * device ledger first (the ledger restored from its checkpoint before anything serves), then what
 * follows them (telemetry, metrics), the pipeline itself ({@link Agent}), and the publishers: the
 * kubelet side (device-plugin servers and the pod-resources poller that keeps its leases true) and
 * the HTTP endpoints. Publishers never know of each other; each reads the ledger. The node labels'
 * feature file follows the inventory alone (it hands out nothing).
 *
 * <p>Closing it stops the parts in the reverse order, kubelet servers before the pipeline so their
 * sockets go away first, and the ledger last, after a final checkpoint write.
 */
public final class AgentDaemon implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AgentDaemon.class);

  /**
   * How long the parts that Register does not need wait for its outcome at start: a kubelet answers
   * in milliseconds, and one that does not answer at all must not keep metrics and health away.
   */
  static final Duration REGISTER_FIRST = Duration.ofSeconds(2);

  private final List<AutoCloseable> parts = new ArrayList<>();
  private Agent agent;
  private DeviceLedger ledger;
  private KubeletPublisher kubelet;
  private MetricsServer server;
  private Optional<MesosBridge> mesos = Optional.empty();
  private Optional<NodeLabelsPublisher> nodeLabels = Optional.empty();
  private Optional<DraPublisher> dra = Optional.empty();

  private AgentDaemon() {}

  public static AgentDaemon start(AgentConfig config) throws IOException {
    AgentDaemon daemon = new AgentDaemon();
    try {
      daemon.startParts(config);
      return daemon;
    } catch (IOException | RuntimeException e) {
      daemon.close();
      throw e;
    }
  }

  private void startParts(AgentConfig config) throws IOException {
    // Before anything is created: sockets, locks and state are the agent's alone.
    FileModeMask.restrict(FileModeMask.OWNER_ONLY);
    // JVM-wide, read when the first JDK HTTP server is created: before any is.
    JdkHttpServerProperties.install();
    Clock clock = Clock.systemUTC();
    LedgerStorage storage = keep(LedgerStorage.open(config.get(Settings.STATE_DIR), clock));
    ledger = storage.ledger();
    // One transport for everything said to the kubelet: the device plugin's and DRA's servers,
    // registration and the pod-resources poll. Made and warmed on a thread of its own while NVML
    // loads and the first scan runs (agent.start() below); kept before the publishers, so closed
    // after them.
    TransportWarmUp transport =
        keep(TransportWarmUp.start("acceld-grpc", 2, config.get(Settings.STATE_DIR)));
    RecordMethodsWarmUp.start(); // beside NVML's load, as the transport's is
    InventoryStore store = new InventoryStore();
    store.subscribe(ledger);
    NodeDiscovery discovery = NodeDiscovery.open(config, true);
    Optional<GpuTelemetrySampler> telemetry =
        discovery
            .nvml()
            .map(
                nvml ->
                    keep(
                        new GpuTelemetrySampler(
                            nvml, store::current, config.get(Settings.TELEMETRY_INTERVAL))));
    String hostname =
        NodeName.resolve(
            config.get(Settings.NODE_NAME), config.environment(), config.get(Settings.PROC_ROOT));
    AgentMetrics metrics =
        keep(
            AgentMetrics.builder()
                .hostname(hostname)
                .nvmlCallStats(() -> discovery.nvml().map(n -> n.callStats()))
                .telemetry(
                    () -> telemetry.map(GpuTelemetrySampler::latest).orElse(TelemetrySample.EMPTY))
                .podOwners(this::podHolding)
                .ledger(ledger::current, Optional.of(storage.writer()))
                .dcgmLabels(
                    config.get(Settings.DCGM_MODEL_LABEL) == DcgmModelLabel.DCGM_EXPORTER
                        ? DcgmCollector.LabelNames.DCGM_EXPORTER
                        : DcgmCollector.LabelNames.PROMTOOL_CLEAN)
                .expectedDevices(config.get(Settings.EXPECT_DEVICES), store::current)
                .build());
    metrics.deviceHealth().follow(store);
    agent = keep(new Agent(config, discovery, store, metrics.healthEvents(), clock));
    agent.start();
    UnixGrpc kubeletGrpc = transport.transport();
    kubelet =
        keep(
            new KubeletPublisher(
                config,
                new TopologyAwareChooser(),
                kubeletEvents(metrics.kubelet()),
                List.of(metrics.grpc()),
                ledger,
                kubeletGrpc));
    PodResourcesPoller pods =
        keep(
            new PodResourcesPoller(
                config.get(Settings.POD_RESOURCES_SOCKET),
                kubeletGrpc,
                ledger,
                kubelet::serves,
                config.get(Settings.KUBELET_PENDING_LEASE_TTL)));
    // After the first scan: the store now holds the node, whose labels replace any the file has.
    nodeLabels =
        NodeLabelsPublisher.start(
            config.get(Settings.NODE_LABELS_FILE),
            nodeFeatureSink(config, hostname),
            store,
            inventory ->
                NodeLabels.of(
                    new LabelInputs(
                        inventory, config.get(Settings.MIG_STRATEGY), config::sharing)));
    nodeLabels.ifPresent(this::keep);
    ExpectedDevices expected = new ExpectedDevices(config.get(Settings.EXPECT_DEVICES));
    log.info(
        "{}",
        StartupReport.line(BuildInfo.current().versionAndRevision(), config, store.current()));
    if (config.get(Settings.FAIL_ON_INIT_ERROR)) {
      failOnInitError(config, discovery, expected.unmet(store.current()));
    }
    // Read before Register, so a bad Mesos setting stops the agent before the kubelet hears of it.
    Optional<MesosBridge.Options> mesosOptions = mesosOptions(config, hostname);
    kubelet.start();
    // What follows is not on the path to the kubelet's Register, and on a 2-core node each part
    // (the JVM series' MXBeans, DRA, telemetry's first pass over every GPU, the pod-resources
    // poll, the HTTP server) took a core from it: it waits for Register's outcome, briefly.
    try {
      kubelet.awaitFirstOutcome(REGISTER_FIRST);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // a stop during the start: the caller closes us
    }
    // After Register: the platform MXBeans the JVM series read are not on its path.
    metrics.bindJvm();
    // After the device plugin too, as DRA below: the bridge's start (its task book's recovery,
    // containment's preflight, its HTTP server) delayed Register by ~130 ms on a 2-core node. The
    // ledger makes the order safe: the leases of the tasks it re-attaches were restored before the
    // kubelet could ask for a device.
    mesos = startMesos(config, mesosOptions, pods, clock);
    mesos.ifPresent(bridge -> bridge.metrics().bindTo(metrics.registry()));
    // After the device plugin: DRA's start (its classes, API client and gRPC server: ~2 s of a
    // loaded 2-core node) delayed the device plugin's registration by as much. The ledger makes the
    // order safe: each side sees the other's leases whenever it starts.
    dra = startDra(config, hostname, store, metrics.registry(), clock, kubeletGrpc);
    telemetry.ifPresent(GpuTelemetrySampler::start);
    pods.start();
    server =
        keep(
            listen(
                config.get(Settings.METRICS_ADDRESS),
                metricsAccess(config),
                metrics.registry(),
                () ->
                    agent.alive()
                        && kubelet.alive()
                        && pods.alive()
                        && telemetry.map(GpuTelemetrySampler::alive).orElse(true)
                        && mesos.map(MesosBridge::alive).orElse(true),
                kubelet::ready,
                () ->
                    DeviceJson.render(
                            DeviceListing.rows(
                                ledger.current(),
                                config::sharing,
                                config.get(Settings.DEV_ROOT),
                                this::containmentOf))
                        + "\n"));
    server.degradedBy(
        () -> {
          List<String> problems = degraded(storage, discovery, mesos);
          dra.flatMap(DraPublisher::degraded).ifPresent(problems::add);
          return problems;
        });
    server.notReadyBecause(
        () -> {
          List<String> reasons = new ArrayList<>(store.current().node().problems());
          reasons.addAll(expected.unmet(store.current()));
          dra.ifPresent(d -> reasons.addAll(d.notReady()));
          return reasons;
        });
    server.notAliveBecause(
        () -> {
          List<String> stuck = new ArrayList<>(agent.stuckLoops());
          telemetry
              .flatMap(t -> t.stuck(config.get(Settings.LOOP_STUCK_AFTER)))
              .ifPresent(stuck::add);
          return stuck;
        });
    notifySystemd(config);
  }

  /** The Mesos bridge's options, when {@code --mesos-address} is set. */
  private static Optional<MesosBridge.Options> mesosOptions(AgentConfig config, String hostname) {
    try {
      return MesosBridge.Options.from(config, hostname);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage(), e);
    }
  }

  /**
   * The Mesos bridge, when {@code --mesos-address} is set. It shares the kubelet's device chooser
   * and runtime specs, so a task gets the devices and environment a pod would, and offers nothing
   * until the kubelet's leases are known since this start.
   */
  private Optional<MesosBridge> startMesos(
      AgentConfig config,
      Optional<MesosBridge.Options> options,
      PodResourcesPoller pods,
      Clock clock)
      throws IOException {
    if (options.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          keep(
              MesosBridge.start(
                  options.get(),
                  ledger,
                  new TopologyAwareChooser(),
                  new RuntimeSpecs(config.get(Settings.HOST_DEV_PREFIX), Optional.empty()),
                  pods::settled,
                  clock)));
    } catch (ContainmentUnavailableException e) {
      // one line, and the kubelet side keeps serving: the node's pods need none of this
      log.error("{}; the Mesos bridge is not started", e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * The DRA publisher, when {@code --dra-driver} is set: ResourceSlices and the kubelet's DRA
   * plugin over the same ledger. Its classes load only then.
   */
  private Optional<DraPublisher> startDra(
      AgentConfig config,
      String nodeName,
      InventoryStore store,
      MeterRegistry registry,
      Clock clock,
      UnixGrpc grpc)
      throws IOException {
    if (config.get(Settings.DRA_DRIVER).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        keep(DraPublisher.start(config, nodeName, ledger, store, registry, clock, grpc)));
  }

  /** The NodeFeature output of the node labels, with {@code --node-labels-api}. */
  private Optional<NodeFeatureSink> nodeFeatureSink(AgentConfig config, String nodeName) {
    if (!config.get(Settings.NODE_LABELS_API)) {
      return Optional.empty();
    }
    return Optional.of(
        keep(
            NodeFeatureSink.connect(
                config.get(Settings.KUBECONFIG), config.environment(), nodeName)));
  }

  /** How a Mesos task holding a device is fenced, for {@code /devices}; nothing for others. */
  private Optional<Map<String, Object>> containmentOf(Holder holder) {
    if (!(holder instanceof Holder.MesosTask task)) {
      return Optional.empty();
    }
    return mesos
        .flatMap(bridge -> bridge.containmentOf(task))
        .map(
            f -> {
              Map<String, Object> c = new LinkedHashMap<>();
              c.put("containerId", f.containerId());
              c.put("cgroups", f.cgroups());
              f.user()
                  .ifPresent(u -> c.put("user", u.name() + " (" + u.uid() + ":" + u.gid() + ")"));
              c.put("memoryBytes", f.limits().memoryBytes());
              c.put("cpus", f.limits().cpus());
              c.put("isolation", f.isolation());
              return c;
            });
  }

  /** The DRA publisher, when it runs. */
  public Optional<DraPublisher> dra() {
    return dra;
  }

  /** The node labels' feature-file writer, when it runs. */
  public Optional<NodeLabelsPublisher> nodeLabels() {
    return nodeLabels;
  }

  /** The Mesos bridge, when it runs. */
  public Optional<MesosBridge> mesos() {
    return mesos;
  }

  /** The metrics address's token and TLS; a bad file stops the start with one line naming it. */
  private static MetricsAccess metricsAccess(AgentConfig config) {
    try {
      return MetricsAccess.fromSettings(
          config.get(Settings.METRICS_AUTH),
          config.get(Settings.METRICS_TLS_CERT),
          config.get(Settings.METRICS_TLS_KEY));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage(), e);
    }
  }

  /** Under systemd ({@code Type=notify}), says READY=1 once every resource is registered. */
  private void notifySystemd(AgentConfig config) {
    try {
      SystemdNotifier.fromEnvironment(config.environment(), kubelet::ready)
          .ifPresent(notifier -> keep(notifier).start());
    } catch (IllegalArgumentException e) {
      // systemd's own variables, malformed: serve anyway; systemd's start timeout will say so
      log.warn("Not notifying systemd: {}", e.getMessage());
    }
  }

  /**
   * Stops the start, before anything serves the kubelet, when the node is not what the operator
   * said it is: NVML configured but not loaded, or fewer devices than expected. Without {@code
   * --fail-on-init-error} the same problems leave the agent up and unready instead.
   */
  private static void failOnInitError(
      AgentConfig config, NodeDiscovery discovery, List<String> unmet) {
    List<String> problems = new ArrayList<>();
    String library = config.get(Settings.NVML_LIBRARY);
    if (discovery.nvml().isEmpty() && !library.strip().equals(NvmlLoader.DISABLED)) {
      problems.add(
          "NVML did not load from --nvml-library "
              + library
              + " (the warning above says why; --nvml-library none runs without it)");
    }
    problems.addAll(unmet);
    if (!problems.isEmpty()) {
      throw new OperatorError(
          OperatorError.Kind.INIT_ERROR,
          String.join("; ", problems)
              + "; exiting because --fail-on-init-error is set (false keeps serving, unready)");
    }
  }

  /**
   * Starts the HTTP endpoints, turning the bind failures an operator meets (the port is taken, the
   * host is not this machine's) into one line naming {@code --metrics-address} and the fix.
   */
  private static MetricsServer listen(
      HostPort address,
      MetricsAccess access,
      PrometheusMeterRegistry registry,
      BooleanSupplier alive,
      BooleanSupplier ready,
      Supplier<String> devices)
      throws IOException {
    try {
      return MetricsServer.start(address, access, registry, alive, ready, devices);
    } catch (BindException e) {
      throw new OperatorError(
          OperatorError.Kind.CANNOT_LISTEN,
          "--metrics-address "
              + address
              + ": "
              + (e.getMessage() == null ? "cannot bind" : e.getMessage().toLowerCase(Locale.ROOT))
              + "; another process (another acceld?) listens there, or the host is not this"
              + " machine's: choose another HOST:PORT with --metrics-address",
          e);
    } catch (SocketException | IllegalArgumentException e) {
      throw new OperatorError(
          OperatorError.Kind.CANNOT_LISTEN,
          "--metrics-address "
              + address
              + ": cannot listen there ("
              + e
              + "); give one of this machine's addresses, such as 0.0.0.0:9445",
          e);
    }
  }

  /** What {@code /healthz} reports beside "ok": parts that work less well than they should. */
  private static List<String> degraded(
      LedgerStorage storage, NodeDiscovery discovery, Optional<MesosBridge> mesos) {
    List<String> problems = new ArrayList<>(discovery.degraded());
    var status = storage.writer().status();
    if (!status.ok()) {
      problems.add(
          "the lease checkpoint cannot be written since "
              + status.since().map(Object::toString).orElse("?")
              + " ("
              + status.problem().orElse("")
              + "); leases are kept in memory and the write is retried");
    }
    mesos.ifPresent(bridge -> problems.addAll(bridge.degraded()));
    return problems;
  }

  /** The kubelet side's events, counted by metrics. */
  private static PluginEvents kubeletEvents(KubeletMetrics metrics) {
    return new PluginEvents() {
      @Override
      public void allocated(String resource, int devices) {
        metrics.allocated(resource, devices);
      }

      @Override
      public void streams(String resource, int open) {
        metrics.streams(resource, open);
      }

      @Override
      public void registered(String resource, boolean registered) {
        metrics.registered(resource, registered);
      }
    };
  }

  /** The pod holding {@code deviceId}, for the pod labels of its GPU series. */
  private Optional<Holder.KubeletPod> podHolding(String deviceId) {
    return ledger.current().leasesOf(deviceId).stream()
        .map(l -> l.holder())
        .filter(Holder.KubeletPod.class::isInstance)
        .map(Holder.KubeletPod.class::cast)
        .findFirst();
  }

  private <T extends AutoCloseable> T keep(T part) {
    parts.add(part);
    return part;
  }

  public Agent agent() {
    return agent;
  }

  public DeviceLedger ledger() {
    return ledger;
  }

  public KubeletPublisher kubelet() {
    return kubelet;
  }

  public MetricsServer metricsServer() {
    return server;
  }

  /** Stops everything in reverse order of start. */
  @Override
  public void close() {
    for (int i = parts.size() - 1; i >= 0; i--) {
      AutoCloseable part = parts.get(i);
      try {
        part.close();
      } catch (Exception e) {
        log.debug("Closing {}: {}", part, e.toString());
      }
    }
  }
}
