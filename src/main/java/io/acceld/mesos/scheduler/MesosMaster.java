package io.acceld.mesos.scheduler;

import io.acceld.allocation.DeviceChooser;
import io.acceld.allocation.RuntimeSpecs;
import io.acceld.ledger.Availability;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Publisher;
import io.acceld.mesos.http.EventStream;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.http.SchedulerEndpoint;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.mesos.tasks.TaskLauncher;
import io.acceld.proto.mesos.v1.Address;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.MasterInfo;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.util.ClientText;
import io.acceld.util.NamedThreads;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node as a single-agent Mesos master, behind the v1 scheduler API: the façade that routes
 * each call to the part that does its job.
 *
 * <ul>
 *   <li>{@link FrameworkRegistry}: SUBSCRIBE, heartbeats, failover, TEARDOWN, UPDATE_FRAMEWORK,
 *       REVIVE, SUPPRESS, and which caller a call is from;
 *   <li>{@link OfferDesk}: offers built from the ledger's {@link Availability}, sent, rescinded
 *       when a device in them stops being available, declined;
 *   <li>{@link AcceptPath}: ACCEPT (validation, device choice and lease, then {@link
 *       LaunchAfterLease});
 *   <li>{@link TaskCalls}: KILL and RECONCILE.
 * </ul>
 *
 * <p>One lock, made here and handed to each part, guards the frameworks ({@link FrameworkTable}),
 * the outstanding offers and the resources of launches in flight ({@link LaunchesInFlight}): a
 * subscription's offers must go with it, and an ACCEPT must lease before the next offer is built,
 * so these are one state, split among classes only by job. Nothing slow runs under it: events go to
 * {@link EventStream#send}, which never blocks, and ACCEPT waits for the lease checkpoint and
 * writes the task book after letting go of it. Timers (heartbeats, failover, allocation) run on one
 * {@code acceld-mesos-master} thread.
 */
public final class MesosMaster implements SchedulerEndpoint, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MesosMaster.class);

  /** What {@code GET /version} and MasterInfo say: the last Mesos release. */
  public static final String MESOS_VERSION = "1.11.0";

  /** How often offers are made anyway (Mesos's allocation interval): filters expire, etc. */
  static final Duration ALLOCATION_INTERVAL = Duration.ofSeconds(1);

  /**
   * How long a framework with live tasks has to re-subscribe after the agent restarted, at least:
   * Mesos's {@code --agent_reregister_timeout}, the window a failed-over master gives. Its own
   * failover timeout is often 0, and an agent upgrade must not kill every task of such a framework.
   */
  static final Duration RESTART_REREGISTER_WINDOW = Duration.ofMinutes(10);

  private final DeviceLedger ledger;
  private final TaskBook book;
  private final TaskLauncher launcher;
  private final AgentID agentId;
  private final MasterInfo masterInfo;
  private final AgentInfo agentInfo;
  private final Quantities nodeScalars;
  private final ScheduledExecutorService timers =
      Executors.newSingleThreadScheduledExecutor(new NamedThreads("acceld-mesos-master"));

  /** The master's one lock; see the class comment. Held here only to read a consistent state. */
  private final Object lock = new Object();

  private final FrameworkTable frameworks = new FrameworkTable();
  private final OfferDesk desk;
  private final FrameworkRegistry registry;
  private final AcceptPath acceptPath;
  private final TaskCalls taskCalls;

  /** The periodic allocation; done only if it was stopped or something escaped allocateSafely. */
  private volatile ScheduledFuture<?> allocationLoop;

  private MesosMaster(
      MasterSettings settings,
      MasterIdentity identity,
      DeviceLedger ledger,
      DeviceChooser chooser,
      RuntimeSpecs specs,
      TaskBook book,
      TaskLauncher launcher,
      Clock clock,
      BooleanSupplier mayOffer) {
    this.ledger = ledger;
    this.book = book;
    this.launcher = launcher;
    this.agentId = AgentID.newBuilder().setValue(identity.agentId()).build();
    this.nodeScalars =
        NodeResources.read(
            settings.procRoot(), settings.sandboxRoot(), Reserve.parse(settings.reserve()));
    String host = settings.hostname();
    int port = settings.address().port();
    String ip = settings.address().host();
    this.masterInfo =
        MasterInfo.newBuilder()
            .setId(identity.masterId())
            .setIp(ipv4AsInt(ip))
            .setPort(port)
            .setHostname(host)
            .setVersion(MESOS_VERSION)
            .setAddress(Address.newBuilder().setHostname(host).setIp(ip).setPort(port))
            .build();
    this.agentInfo = AgentInfo.newBuilder().setHostname(host).setId(agentId).setPort(port).build();
    LaunchesInFlight launches = new LaunchesInFlight();
    MasterStatuses statuses = new MasterStatuses(agentId, clock);
    this.desk =
        new OfferDesk(
            lock,
            frameworks,
            launches,
            new OfferBook(identity.masterId(), clock.millis() * 1000),
            ledger,
            book,
            launcher,
            new OfferFactory(agentId, host, ip, port),
            nodeScalars,
            clock,
            mayOffer,
            settings.filterGpuResources(),
            timers);
    this.registry =
        new FrameworkRegistry(
            lock,
            frameworks,
            desk,
            identity,
            masterInfo,
            agentId,
            new Heartbeats(timers, settings.heartbeat()),
            timers,
            book,
            launcher);
    this.acceptPath =
        new AcceptPath(
            lock,
            frameworks,
            launches,
            desk,
            ledger,
            chooser,
            specs,
            book,
            launcher,
            agentId,
            statuses,
            new LaunchAfterLease(
                lock, frameworks, launches, ledger, book, launcher, agentInfo, statuses));
    this.taskCalls = new TaskCalls(lock, frameworks, launches, book, launcher, agentId, clock);
  }

  /**
   * Opens the master: reads (or creates) its identity under {@code settings.dir()}, attaches to the
   * task book, follows the ledger and starts offering once {@code mayOffer} holds.
   *
   * @param mayOffer false until offering is safe: the lead wires "the kubelet's pod-resources were
   *     reconciled once", so no device a pod holds is offered after a restart
   * @throws IllegalArgumentException when {@code --mesos-reserve} is malformed, naming the part
   */
  public static MesosMaster open(
      MasterSettings settings,
      DeviceLedger ledger,
      DeviceChooser chooser,
      RuntimeSpecs specs,
      TaskBook book,
      TaskLauncher launcher,
      Clock clock,
      BooleanSupplier mayOffer)
      throws IOException {
    Reserve.parse(settings.reserve()); // fail before anything is written
    MesosMaster master =
        new MesosMaster(
            settings,
            MasterIdentity.open(settings.dir()),
            ledger,
            chooser,
            specs,
            book,
            launcher,
            clock,
            mayOffer);
    book.attach(master.registry.forwarder());
    master.registry.restore(RESTART_REREGISTER_WINDOW);
    ledger.subscribeIgnoring(Publisher.MESOS, master.desk::onAvailability);
    long every = ALLOCATION_INTERVAL.toNanos();
    master.allocationLoop =
        master.timers.scheduleWithFixedDelay(
            master.desk::allocateSafely, every, every, TimeUnit.NANOSECONDS);
    return master;
  }

  public AgentID agentId() {
    return agentId;
  }

  /**
   * What the master holds now, for metrics.
   *
   * @param subscribed frameworks with an open subscription
   * @param disconnected frameworks known but not connected (within their failover timeout)
   * @param outstandingOffers offers sent and not yet used, declined or rescinded
   * @param offersRescinded RESCIND events sent since this start
   */
  public record Stats(
      int subscribed, int disconnected, int outstandingOffers, long offersRescinded) {}

  /**
   * Whether the master still works: its timer thread runs and the periodic allocation has not
   * stopped (an error escaping it would end the loop silently, and offers with it).
   */
  public boolean alive() {
    ScheduledFuture<?> loop = allocationLoop;
    return !timers.isShutdown() && loop != null && !loop.isDone();
  }

  public Stats stats() {
    synchronized (lock) {
      int connected = 0;
      for (Framework fw : frameworks.all()) {
        if (fw.isConnected()) {
          connected++;
        }
      }
      return new Stats(
          connected, frameworks.size() - connected, desk.outstanding(), desk.rescinded());
    }
  }

  public MasterInfo masterInfo() {
    return masterInfo;
  }

  @Override
  public Reply subscribe(Call call, Optional<String> principal) {
    Optional<String> malformed = CallValidation.problem(call);
    if (malformed.isPresent()) {
      return Reply.failure(400, CallValidation.PREFIX + malformed.get());
    }
    if (call.getType() != Call.Type.SUBSCRIBE) {
      return handle(call, Optional.empty(), principal);
    }
    return registry.subscribe(call, principal);
  }

  @Override
  public Reply handle(Call call, Optional<String> streamId, Optional<String> principal) {
    Optional<String> malformed = CallValidation.problem(call);
    if (malformed.isPresent()) {
      return Reply.failure(400, CallValidation.PREFIX + malformed.get());
    }
    if (call.getType() == Call.Type.SUBSCRIBE) {
      return Reply.failure(400, "Subscribe calls should not include the 'Mesos-Stream-Id' header");
    }
    FrameworkID id = call.getFrameworkId();
    Optional<Reply> refused = registry.refusal(id, streamId, principal);
    if (refused.isPresent()) {
      return refused.get();
    }
    return switch (call.getType()) {
      case TEARDOWN -> {
        registry.teardown(id, "it asked to (TEARDOWN)");
        yield Reply.accepted();
      }
      case ACCEPT -> {
        acceptPath.accept(id, call.getAccept());
        yield Reply.accepted();
      }
      case DECLINE -> {
        desk.decline(
            id,
            call.getDecline().getOfferIdsList(),
            call.getDecline().getFilters(),
            call.getDecline().hasFilters());
        yield Reply.accepted();
      }
      case REVIVE -> {
        registry.revive(id, call.getRevive().getRolesList());
        yield Reply.accepted();
      }
      case SUPPRESS -> {
        registry.suppress(id, call.getSuppress().getRolesList());
        yield Reply.accepted();
      }
      case KILL -> {
        taskCalls.kill(id, call.getKill());
        yield Reply.accepted();
      }
      case SHUTDOWN -> {
        launcher.shutdownExecutor(id, call.getShutdown().getExecutorId());
        yield Reply.accepted();
      }
      case ACKNOWLEDGE -> {
        Call.Acknowledge ack = call.getAcknowledge();
        if (!book.acknowledge(id, ack.getTaskId(), ack.getUuid())) {
          log.debug(
              "Ignored an acknowledgement for task {}: no such update is outstanding",
              ClientText.quote(ack.getTaskId().getValue()));
        }
        yield Reply.accepted();
      }
      case RECONCILE -> {
        taskCalls.reconcile(id, call.getReconcile());
        yield Reply.accepted();
      }
      case MESSAGE -> {
        Call.Message m = call.getMessage();
        if (!launcher.message(id, m.getExecutorId(), m.getData())) {
          log.debug(
              "Dropped a message to executor {}, which is not subscribed",
              ClientText.quote(m.getExecutorId().getValue()));
        }
        yield Reply.accepted();
      }
      case UPDATE_FRAMEWORK -> registry.update(id, call.getUpdateFramework());
      case REQUEST,
          ACCEPT_INVERSE_OFFERS,
          DECLINE_INVERSE_OFFERS,
          ACKNOWLEDGE_OPERATION_STATUS,
          RECONCILE_OPERATIONS ->
          Reply.accepted();
      default -> Reply.failure(501, "Received an unknown call type");
    };
  }

  /** {@code GET /state}: the agent, its total and free resources, frameworks, tasks, devices. */
  public String stateJson() {
    Availability availability = ledger.current();
    synchronized (lock) {
      return MasterState.render(
          masterInfo,
          agentInfo,
          nodeScalars,
          desk.freeScalars(false),
          availability,
          frameworks.all(),
          desk.all(),
          book.tasks(),
          book.completed());
    }
  }

  /** The IPv4 address as Mesos's MasterInfo.ip wants it (network byte order read as uint32). */
  static int ipv4AsInt(String host) {
    String[] parts = host.split("\\.");
    if (parts.length != 4) {
      return 0;
    }
    int ip = 0;
    try {
      for (int i = 3; i >= 0; i--) {
        int b = Integer.parseInt(parts[i]);
        if (b < 0 || b > 255) {
          return 0;
        }
        ip = (ip << 8) | b;
      }
    } catch (NumberFormatException e) {
      return 0;
    }
    return ip;
  }

  @Override
  public void close() {
    List<Subscription> open = registry.open();
    timers.shutdownNow();
    open.forEach(Subscription::end);
  }
}
