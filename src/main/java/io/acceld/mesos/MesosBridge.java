package io.acceld.mesos;

import io.acceld.allocation.DeviceChooser;
import io.acceld.allocation.RuntimeSpecs;
import io.acceld.config.AgentConfig;
import io.acceld.config.HostPort;
import io.acceld.config.Settings;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.mesos.containment.Containment;
import io.acceld.mesos.containment.ContainmentSettings;
import io.acceld.mesos.containment.Preflight;
import io.acceld.mesos.executor.ContainerSettings;
import io.acceld.mesos.executor.Containers;
import io.acceld.mesos.http.Authenticator;
import io.acceld.mesos.http.HttpAccess;
import io.acceld.mesos.http.MesosHttpServer;
import io.acceld.mesos.scheduler.MasterSettings;
import io.acceld.mesos.scheduler.MesosMaster;
import io.acceld.mesos.tasks.TaskBook;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Mesos bridge, composed: the task book restored from {@code <state-dir>/mesos}, the HTTP
 * server bound (answering 503 until recovery is done, as a recovering Mesos master and agent do),
 * the containers of the previous run re-attached or reported, and then the master, which starts
 * offering once {@code mayOffer} holds.
 *
 * <p>The server is bound before the rest is built because the executor environment and the master's
 * own info carry the port it really got ({@code --mesos-address 127.0.0.1:0} picks one).
 */
public final class MesosBridge implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MesosBridge.class);

  private final List<AutoCloseable> parts = new ArrayList<>();
  private MesosHttpServer server;
  private TaskBook book;
  private Containers containers;
  private MesosMaster master;

  /**
   * What the bridge needs of the agent's settings.
   *
   * @param hostname this node's name, as offers and MasterInfo show it
   */
  public record Options(
      HostPort address,
      Optional<Authenticator> auth,
      boolean allowInsecure,
      Path stateDir,
      Path procRoot,
      String hostname,
      Duration heartbeat,
      String reserve,
      boolean filterGpuResources,
      Duration executorRegistrationTimeout,
      Duration statusUpdateRetry,
      ContainmentSettings containment) {
    public Options {
      Objects.requireNonNull(containment, "containment");
      Objects.requireNonNull(address, "address");
      Objects.requireNonNull(auth, "auth");
      Objects.requireNonNull(stateDir, "stateDir");
      Objects.requireNonNull(procRoot, "procRoot");
      Objects.requireNonNull(hostname, "hostname");
    }

    /**
     * The bridge's options from the agent's config, or empty when {@code --mesos-address} is not
     * set.
     *
     * @throws IllegalArgumentException when {@code --mesos-auth} names a bad file
     */
    public static Optional<Options> from(AgentConfig config, String hostname) {
      return config
          .get(Settings.MESOS_ADDRESS)
          .map(
              address ->
                  new Options(
                      address,
                      Authenticator.fromFlag(config.get(Settings.MESOS_AUTH)),
                      config.get(Settings.MESOS_ALLOW_INSECURE),
                      config.get(Settings.STATE_DIR),
                      config.get(Settings.PROC_ROOT),
                      hostname,
                      config.get(Settings.MESOS_HEARTBEAT),
                      config.get(Settings.MESOS_RESERVE),
                      config.get(Settings.MESOS_FILTER_GPU_RESOURCES),
                      config.get(Settings.MESOS_EXECUTOR_REGISTRATION_TIMEOUT),
                      config.get(Settings.MESOS_STATUS_UPDATE_RETRY),
                      containment(config)));
    }

    /** Task containment from {@code --mesos-isolation} and its companions. */
    static ContainmentSettings containment(AgentConfig config) {
      return new ContainmentSettings(
          config.get(Settings.MESOS_ISOLATION),
          config.get(Settings.MESOS_SWITCH_USER),
          config.get(Settings.MESOS_ALLOW_ROOT_TASKS),
          config.get(Settings.CGROUP_ROOT),
          config.get(Settings.DEV_ROOT),
          ContainmentSettings.DEFAULT_SETPRIV,
          config.get(Settings.MESOS_CGROUP_PARENT));
    }
  }

  private MesosBridge() {}

  /**
   * Starts the bridge over {@code ledger}.
   *
   * @param mayOffer false while offering is unsafe (the kubelet's leases are not yet known)
   */
  public static MesosBridge start(
      Options options,
      DeviceLedger ledger,
      DeviceChooser chooser,
      RuntimeSpecs specs,
      BooleanSupplier mayOffer,
      Clock clock)
      throws IOException {
    return start(options, ledger, chooser, specs, mayOffer, clock, UnaryOperator.identity());
  }

  /**
   * {@link #start} with the container timers {@code containerSettings} makes of Mesos's defaults:
   * lets a conformance test see the executor HEARTBEAT, which Mesos sends only every 30 minutes.
   */
  static MesosBridge start(
      Options options,
      DeviceLedger ledger,
      DeviceChooser chooser,
      RuntimeSpecs specs,
      BooleanSupplier mayOffer,
      Clock clock,
      UnaryOperator<ContainerSettings> containerSettings)
      throws IOException {
    MesosBridge bridge = new MesosBridge();
    try {
      bridge.startParts(options, ledger, chooser, specs, mayOffer, clock, containerSettings);
      return bridge;
    } catch (IOException | RuntimeException e) {
      bridge.close();
      throw e;
    }
  }

  private void startParts(
      Options options,
      DeviceLedger ledger,
      DeviceChooser chooser,
      RuntimeSpecs specs,
      BooleanSupplier mayOffer,
      Clock clock,
      UnaryOperator<ContainerSettings> containerSettings)
      throws IOException {
    checkContainment(options.containment());
    // first kept, so last closed: held until every other part has stopped
    keepHeld(options.containment());
    Path dir = options.stateDir().resolve("mesos");
    book = keep(TaskBook.open(dir, ledger, clock, options.statusUpdateRetry()));
    Recovering endpoints = new Recovering();
    server =
        keep(
            MesosHttpServer.start(
                options.address(),
                HttpAccess.of(options.auth(), options.allowInsecure())
                    .withExecutorTokens(endpoints),
                endpoints,
                endpoints,
                endpoints::stateJson));
    HostPort advertised = advertised(options.address(), server.port(), options.hostname());
    containers =
        keep(
            Containers.open(
                dir,
                containerSettings.apply(
                    ContainerSettings.defaults(advertised, options.executorRegistrationTimeout())
                        .withContainment(options.containment())),
                book,
                clock));
    Set<Holder.MesosTask> known = containers.recover();
    master =
        keep(
            MesosMaster.open(
                new MasterSettings(
                    dir,
                    options.procRoot(),
                    dir,
                    advertised,
                    options.hostname(),
                    options.heartbeat(),
                    options.reserve(),
                    options.filterGpuResources()),
                ledger,
                chooser,
                specs,
                book,
                containers,
                clock,
                mayOffer));
    book.afterRecovery(known);
    endpoints.serve(master, containers);
    log.info(
        "Mesos bridge serving on {} (agent {}, {} task(s) recovered)",
        advertised,
        master.agentId().getValue(),
        known.size());
  }

  /**
   * Before anything binds: tasks run only as contained as configured, or the bridge does not start
   * at all. {@code --mesos-isolation none} is the operator's explicit choice, said once.
   *
   * @throws ContainmentUnavailableException naming what is missing and how to do without it
   */
  private static void checkContainment(ContainmentSettings settings)
      throws ContainmentUnavailableException {
    Preflight preflight = Containment.create(settings).preflight();
    if (!preflight.ok()) {
      throw new ContainmentUnavailableException(preflight.message());
    }
    if (settings.isolation().isEmpty()) {
      log.warn(
          "Mesos tasks run uncontained (--mesos-isolation none): no cgroup, so a task can open"
              + " every accelerator's device node, use all memory and cpu, and leave processes"
              + " behind a kill");
    } else {
      log.info("{}", preflight.message());
    }
  }

  /**
   * Holds the cgroup parent for as long as the bridge runs, so that a second agent on it is refused
   * before its recovery could remove this one's containers as ended.
   *
   * @throws ContainmentUnavailableException naming the parent, that another acceld holds it, and
   *     {@code --mesos-cgroup-parent}
   */
  private void keepHeld(ContainmentSettings settings) throws ContainmentUnavailableException {
    try {
      Containment.create(settings).lockParent().ifPresent(this::keep);
    } catch (IOException e) {
      throw new ContainmentUnavailableException(e.getMessage());
    }
  }

  /**
   * The address schedulers and executors are told to use: the bound one, or for a wildcard bind
   * this node's address, since {@code 0.0.0.0} reaches nothing from elsewhere.
   */
  static HostPort advertised(HostPort bound, int port, String hostname) {
    String host = bound.host();
    if (host.equals("0.0.0.0") || host.equals("::") || host.isEmpty()) {
      try {
        host = InetAddress.getByName(hostname).getHostAddress();
      } catch (UnknownHostException e) {
        log.warn(
            "Cannot resolve this node's name {} for the Mesos bridge's address; telling"
                + " executors 127.0.0.1 (give --mesos-address this node's IP instead of {})",
            hostname,
            bound.host());
        host = "127.0.0.1";
      }
    }
    return new HostPort(host, port);
  }

  public int port() {
    return server.port();
  }

  public MesosMaster master() {
    return master;
  }

  /** The bridge's series, for the agent's registry. */
  public MesosMetrics metrics() {
    return new MesosMetrics(master, book, containers);
  }

  /**
   * How {@code task} is contained, for {@code /devices} and {@code acceld devices}: its cgroups,
   * user and limits. Empty when it does not run here or runs unfenced.
   */
  public Optional<io.acceld.mesos.containment.FenceDescription> containmentOf(
      Holder.MesosTask task) {
    return containers == null ? Optional.empty() : containers.fenceOf(task);
  }

  /**
   * Whether the bridge still works (for {@code /healthz}): its HTTP threads, the containers'
   * threads, the status-update sender and the master's allocation loop all run. None of them is
   * expected to stop while the agent runs; if one did, a restart re-attaches every task.
   */
  public boolean alive() {
    return server.alive() && containers.alive() && book.alive() && master.alive();
  }

  /**
   * What {@code /healthz} adds as {@code degraded:} lines: the task checkpoint failing, which a
   * restart would not mend (a full or read-only disk).
   */
  public List<String> degraded() {
    return book.checkpointProblem().map(List::of).orElse(List.of());
  }

  private <T extends AutoCloseable> T keep(T part) {
    parts.add(part);
    return part;
  }

  /**
   * Stops serving and leaves every task running: the next start re-attaches them, and a restart of
   * the agent is not a reason to kill a workload.
   */
  @Override
  public void close() {
    for (int i = parts.size() - 1; i >= 0; i--) {
      try {
        parts.get(i).close();
      } catch (Exception e) {
        log.warn("Closing {} failed: {}", parts.get(i).getClass().getSimpleName(), e.toString());
      }
    }
    parts.clear();
  }
}
