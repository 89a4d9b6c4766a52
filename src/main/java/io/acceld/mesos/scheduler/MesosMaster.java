package io.acceld.mesos.scheduler;

import com.google.protobuf.ByteString;
import io.acceld.allocation.DeviceChooser;
import io.acceld.allocation.RuntimeSpecs;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Availability;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.LeaseResult;
import io.acceld.ledger.Publisher;
import io.acceld.mesos.http.EventStream;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.http.SchedulerEndpoint;
import io.acceld.mesos.tasks.Launch;
import io.acceld.mesos.tasks.LaunchedTask;
import io.acceld.mesos.tasks.StatusForwarder;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.mesos.tasks.TaskLauncher;
import io.acceld.mesos.tasks.TaskView;
import io.acceld.proto.mesos.v1.Address;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.Attribute;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.Filters;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.KillPolicy;
import io.acceld.proto.mesos.v1.MasterInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.OfferID;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.util.ClientText;
import io.acceld.util.GuardedBy;
import io.acceld.util.NamedThreads;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node as a single-agent Mesos master, behind the v1 scheduler API: subscriptions and
 * heartbeats, offers built from the ledger's {@link Availability} (rescinded when a device in them
 * stops being available), ACCEPT leasing through the ledger, and the task calls.
 *
 * <p>One lock guards the frameworks, the outstanding offers and the resources of launches in
 * flight. Nothing slow runs under it: events go to {@link EventStream#send}, which never blocks,
 * and ACCEPT waits for the lease checkpoint and writes the task book after letting go of it (the
 * devices are already leased, and the launch's CPUs and memory are counted as in flight, so nothing
 * is offered twice meanwhile). Timers (heartbeats, failover, allocation) run on one {@code
 * acceld-mesos-master} thread.
 */
public final class MesosMaster implements SchedulerEndpoint, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MesosMaster.class);

  /** What {@code GET /version} and MasterInfo say: the last Mesos release. */
  public static final String MESOS_VERSION = "1.11.0";

  /** How often offers are made anyway (Mesos's allocation interval): filters expire, etc. */
  static final Duration ALLOCATION_INTERVAL = Duration.ofSeconds(1);

  /** The least Mesos offers of CPUs or memory (MIN_CPUS, MIN_MEM). */
  private static final double MIN_CPUS = 0.01;

  private static final double MIN_MEM = 32;

  private static final Duration PERSIST_TIMEOUT = Duration.ofSeconds(10);

  /**
   * How long a framework with live tasks has to re-subscribe after the agent restarted, at least:
   * Mesos's {@code --agent_reregister_timeout}, the window a failed-over master gives. Its own
   * failover timeout is often 0, and an agent upgrade must not kill every task of such a framework.
   */
  static final Duration RESTART_REREGISTER_WINDOW = Duration.ofMinutes(10);

  private final DeviceLedger ledger;
  private final DeviceChooser chooser;
  private final RuntimeSpecs specs;
  private final TaskBook book;
  private final TaskLauncher launcher;
  private final Clock clock;
  private final BooleanSupplier mayOffer;
  private final boolean filterGpuResources;
  private final MasterIdentity identity;
  private final AgentID agentId;
  private final MasterInfo masterInfo;
  private final AgentInfo agentInfo;
  private final OfferFactory offerFactory;
  private final Quantities nodeScalars;
  private final ScheduledExecutorService timers =
      Executors.newSingleThreadScheduledExecutor(new NamedThreads("acceld-mesos-master"));
  private final Heartbeats heartbeats;
  private final AtomicBoolean allocationQueued = new AtomicBoolean();
  private final AtomicLong rescinded = new AtomicLong();

  /** The periodic allocation; done only if it was stopped or something escaped allocateSafely. */
  private volatile ScheduledFuture<?> allocationLoop;

  private final Object lock = new Object();

  @GuardedBy("lock")
  private final Map<String, Framework> frameworks = new LinkedHashMap<>();

  /** Frameworks torn down: they may not subscribe again (Mesos: "Framework has been removed"). */
  @GuardedBy("lock")
  private final Set<String> removed = new HashSet<>();

  @GuardedBy("lock")
  private final OfferBook offers;

  /** CPUs, memory and disk of ACCEPTs between leasing and the task book. */
  @GuardedBy("lock")
  private final Map<Holder.MesosTask, Quantities> launching = new HashMap<>();

  /** KILLs of tasks still in {@link #launching}: delivered once the executor side has them. */
  @GuardedBy("lock")
  private final Map<Holder.MesosTask, Optional<KillPolicy>> killsWhileLaunching = new HashMap<>();

  @GuardedBy("lock")
  private int nextFirst;

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
    this.chooser = chooser;
    this.specs = specs;
    this.book = book;
    this.launcher = launcher;
    this.clock = clock;
    this.mayOffer = mayOffer;
    this.filterGpuResources = settings.filterGpuResources();
    this.identity = identity;
    this.agentId = AgentID.newBuilder().setValue(identity.agentId()).build();
    this.heartbeats = new Heartbeats(timers, settings.heartbeat());
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
    this.offerFactory = new OfferFactory(agentId, host, ip, port);
    this.offers = new OfferBook(identity.masterId(), clock.millis() * 1000);
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
    book.attach(master.new Forwarder());
    master.restoreFrameworks();
    ledger.subscribeIgnoring(Publisher.MESOS, master::onAvailability);
    long every = ALLOCATION_INTERVAL.toNanos();
    master.allocationLoop =
        master.timers.scheduleWithFixedDelay(
            master::allocateSafely, every, every, TimeUnit.NANOSECONDS);
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
      for (Framework fw : frameworks.values()) {
        if (fw.isConnected()) {
          connected++;
        }
      }
      return new Stats(
          connected, frameworks.size() - connected, offers.outstanding(), rescinded.get());
    }
  }

  public MasterInfo masterInfo() {
    return masterInfo;
  }

  // ---------------------------------------------------------------------------------------------
  // SUBSCRIBE

  @Override
  public Reply subscribe(Call call, Optional<String> principal) {
    Optional<String> malformed = CallValidation.problem(call);
    if (malformed.isPresent()) {
      return Reply.failure(400, CallValidation.PREFIX + malformed.get());
    }
    if (call.getType() != Call.Type.SUBSCRIBE) {
      return handle(call, Optional.empty(), principal);
    }
    FrameworkInfo info = call.getSubscribe().getFrameworkInfo();
    if (call.hasFrameworkId() != info.hasId()
        || (info.hasId() && !info.getId().equals(call.getFrameworkId()))) {
      return Reply.failure(
          400, CallValidation.PREFIX + "'framework_id' differs from 'subscribe.framework_info.id'");
    }
    if (principal.isPresent()
        && info.hasPrincipal()
        && !info.getPrincipal().equals(principal.get())) {
      return Reply.failure(
          403,
          "Authenticated principal "
              + ClientText.quote(principal.get())
              + " does not match principal "
              + ClientText.quote(info.getPrincipal())
              + " set in `FrameworkInfo`");
    }
    String streamId = UUID.randomUUID().toString();
    Optional<String> refusal = subscribeProblem(info, call.getSubscribe().getSuppressedRolesList());
    if (refusal.isPresent()) {
      // Mesos answers 200 and puts the error on the stream (test RejectFrameworkWithInvalidRole).
      Event error =
          Event.newBuilder()
              .setType(Event.Type.ERROR)
              .setError(Event.Error.newBuilder().setMessage(refusal.get()))
              .build();
      return new Reply.Stream(
          Optional.of(streamId),
          stream -> {
            stream.send(error);
            stream.close();
          });
    }
    return new Reply.Stream(
        Optional.of(streamId),
        stream -> opened(info, call.getSubscribe().getSuppressedRolesList(), streamId, stream));
  }

  private Optional<String> subscribeProblem(FrameworkInfo info, List<String> suppressed) {
    List<String> roles = new ArrayList<>(info.getRolesList());
    if (roles.isEmpty()) {
      roles.add(info.getRole());
    }
    roles.addAll(suppressed);
    for (String role : roles) {
      Optional<String> p = Roles.problem(role);
      if (p.isPresent()) {
        return p;
      }
    }
    synchronized (lock) {
      if (info.hasId() && removed.contains(info.getId().getValue())) {
        return Optional.of("Framework has been removed");
      }
    }
    return Optional.empty();
  }

  /** The SUBSCRIBE stream is open: (re)register the framework and send SUBSCRIBED. */
  private void opened(
      FrameworkInfo requested, List<String> suppressed, String streamId, EventStream stream) {
    FrameworkID id;
    try {
      id =
          requested.hasId()
              ? requested.getId()
              : FrameworkID.newBuilder().setValue(identity.newFrameworkId()).build();
    } catch (IOException e) {
      log.error("Could not persist a new framework ID", e);
      stream.send(error("The agent could not persist a new framework ID: " + e.getMessage()));
      stream.close();
      return;
    }
    Subscription subscription = new Subscription(streamId, stream);
    Optional<Subscription> replaced;
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      FrameworkInfo info = requested.toBuilder().setId(id).build();
      if (fw == null) {
        fw = new Framework(id, info);
        frameworks.put(id.getValue(), fw);
        log.info("Framework {} ({}) subscribed", id.getValue(), ClientText.quote(info.getName()));
      } else {
        // user and checkpoint cannot change on re-subscription (Mesos ignores the new values).
        fw.info =
            info.toBuilder()
                .setUser(fw.info.getUser())
                .setCheckpoint(fw.info.getCheckpoint())
                .build();
        log.info("Framework {} re-subscribed", id.getValue());
      }
      if (fw.failover != null) {
        fw.failover.cancel(false);
        fw.failover = null;
      }
      replaced = fw.subscription;
      fw.subscription = Optional.of(subscription);
      fw.suppressedRoles.clear();
      fw.suppressedRoles.addAll(suppressed);
      // Offers the old subscription held are simply forgotten: the new stream never saw them.
      offers.of(id).forEach(o -> offers.remove(o.id()));
      subscription.send(
          Event.newBuilder()
              .setType(Event.Type.SUBSCRIBED)
              .setSubscribed(
                  Event.Subscribed.newBuilder()
                      .setFrameworkId(id)
                      .setHeartbeatIntervalSeconds(heartbeats.interval().toMillis() / 1000.0)
                      .setMasterInfo(masterInfo))
              .build());
      heartbeats.start(subscription);
    }
    replaced.ifPresent(
        old -> {
          old.send(error("Framework failed over"));
          old.end();
        });
    stream.onClose(() -> disconnected(id, subscription));
    book.resendUnacknowledged(id);
    queueAllocation();
  }

  /**
   * The frameworks of the tasks that outlived a restart, known again but disconnected: their calls
   * get 403 until they re-subscribe, and they are torn down if they do not within their failover
   * timeout, or {@link #RESTART_REREGISTER_WINDOW} if that is longer.
   */
  private void restoreFrameworks() {
    synchronized (lock) {
      for (TaskView task : book.tasks()) {
        if (task.isTerminal() || frameworks.containsKey(task.frameworkId())) {
          continue;
        }
        FrameworkInfo info = task.framework();
        FrameworkID id = info.getId();
        Framework fw = new Framework(id, info);
        frameworks.put(id.getValue(), fw);
        double seconds =
            Math.max(RESTART_REREGISTER_WINDOW.toSeconds(), Math.max(0, info.getFailoverTimeout()));
        long nanos = seconds > Long.MAX_VALUE / 1e9 ? Long.MAX_VALUE : (long) (seconds * 1e9);
        fw.failover =
            timers.schedule(
                () -> teardown(id, "it did not re-subscribe after the agent restarted"),
                nanos,
                TimeUnit.NANOSECONDS);
        log.info(
            "Framework {} has tasks from before the restart; it is torn down unless it"
                + " re-subscribes within {} s",
            id.getValue(),
            (long) seconds);
      }
    }
  }

  /** A subscription's stream ended: the framework is disconnected and failover time starts. */
  private void disconnected(FrameworkID id, Subscription subscription) {
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      if (fw == null || fw.subscription.isEmpty() || fw.subscription.get() != subscription) {
        return; // replaced by a newer subscription, or torn down
      }
      subscription.end();
      fw.subscription = Optional.empty();
      offers.of(id).forEach(o -> offers.remove(o.id()));
      double timeout = Math.max(0, fw.info.getFailoverTimeout());
      long nanos =
          Double.isInfinite(timeout) || timeout > Long.MAX_VALUE / 1e9
              ? Long.MAX_VALUE
              : (long) (timeout * 1e9);
      log.info(
          "Framework {} disconnected; it is torn down unless it re-subscribes within {} s",
          id.getValue(),
          timeout);
      try {
        fw.failover =
            timers.schedule(
                () -> teardown(id, "its failover timeout passed"), nanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closed) {
        // shutting down
      }
    }
    queueAllocation();
  }

  /** Removes a framework: its executors and tasks are shut down, their leases go as they end. */
  private void teardown(FrameworkID id, String why) {
    Optional<Subscription> subscription;
    synchronized (lock) {
      Framework fw = frameworks.remove(id.getValue());
      if (fw == null) {
        return;
      }
      removed.add(id.getValue());
      if (fw.failover != null) {
        fw.failover.cancel(false);
      }
      subscription = fw.subscription;
      offers.of(id).forEach(o -> offers.remove(o.id()));
    }
    log.info("Tearing down framework {}: {}", id.getValue(), why);
    subscription.ifPresent(Subscription::end);
    launcher.shutdownFramework(id);
    book.removeFramework(id);
    queueAllocation();
  }

  // ---------------------------------------------------------------------------------------------
  // Other calls

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
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      if (fw == null) {
        return Reply.failure(400, "Framework cannot be found");
      }
      if (principal.isPresent()
          && fw.info.hasPrincipal()
          && !fw.info.getPrincipal().equals(principal.get())) {
        return Reply.failure(
            400,
            "Authenticated principal "
                + ClientText.quote(principal.get())
                + " does not match principal "
                + ClientText.quote(fw.info.getPrincipal())
                + " set in `FrameworkInfo`");
      }
      if (fw.subscription.isEmpty()) {
        return Reply.failure(403, "Framework is not subscribed");
      }
      if (streamId.isEmpty()) {
        return Reply.failure(
            400, "All non-subscribe calls should include the 'Mesos-Stream-Id' header");
      }
      if (!streamId.get().equals(fw.subscription.get().streamId)) {
        return Reply.failure(
            400,
            "The stream ID "
                + ClientText.quote(streamId.get())
                + " included in this request didn't match the stream ID currently associated"
                + " with framework ID "
                + id.getValue());
      }
    }
    return switch (call.getType()) {
      case TEARDOWN -> {
        teardown(id, "it asked to (TEARDOWN)");
        yield Reply.accepted();
      }
      case ACCEPT -> {
        accept(id, call.getAccept());
        yield Reply.accepted();
      }
      case DECLINE -> {
        decline(
            id,
            call.getDecline().getOfferIdsList(),
            call.getDecline().getFilters(),
            call.getDecline().hasFilters());
        yield Reply.accepted();
      }
      case REVIVE -> {
        revive(id, call.getRevive().getRolesList());
        yield Reply.accepted();
      }
      case SUPPRESS -> {
        suppress(id, call.getSuppress().getRolesList());
        yield Reply.accepted();
      }
      case KILL -> {
        kill(id, call.getKill());
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
        reconcile(id, call.getReconcile());
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
      case UPDATE_FRAMEWORK -> updateFramework(id, call.getUpdateFramework());
      case REQUEST,
          ACCEPT_INVERSE_OFFERS,
          DECLINE_INVERSE_OFFERS,
          ACKNOWLEDGE_OPERATION_STATUS,
          RECONCILE_OPERATIONS ->
          Reply.accepted();
      default -> Reply.failure(501, "Received an unknown call type");
    };
  }

  private Reply updateFramework(FrameworkID id, Call.UpdateFramework update) {
    FrameworkInfo info = update.getFrameworkInfo();
    if (!info.hasId() || !info.getId().equals(id)) {
      return Reply.failure(
          400,
          CallValidation.PREFIX
              + "'framework_id' differs from 'update_framework.framework_info.id'");
    }
    Optional<String> p = subscribeProblem(info, update.getSuppressedRolesList());
    if (p.isPresent()) {
      return Reply.failure(400, p.get());
    }
    List<Sent> rescinds = new ArrayList<>();
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      if (fw == null) {
        return Reply.failure(400, "Framework cannot be found");
      }
      if (!info.getUser().equals(fw.info.getUser())) {
        return Reply.failure(400, "Updating 'FrameworkInfo.user' is unsupported");
      }
      if (info.getCheckpoint() != fw.info.getCheckpoint()) {
        return Reply.failure(400, "Updating 'FrameworkInfo.checkpoint' is unsupported");
      }
      boolean offersChange =
          !info.getCapabilitiesList().equals(fw.info.getCapabilitiesList())
              || !info.getRolesList().equals(fw.info.getRolesList())
              || !info.getRole().equals(fw.info.getRole());
      fw.info = info;
      fw.suppressedRoles.clear();
      fw.suppressedRoles.addAll(update.getSuppressedRolesList());
      if (offersChange) {
        // Outstanding offers were shaped by the old capabilities and roles.
        for (OutstandingOffer o : offers.of(id)) {
          offers.remove(o.id());
          rescinds.add(new Sent(fw, rescind(o)));
        }
      }
    }
    rescinds.forEach(Sent::send);
    queueAllocation();
    return new Reply.Ok();
  }

  private void decline(
      FrameworkID id, List<OfferID> offerIds, Filters filters, boolean hasFilters) {
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      if (fw == null) {
        return;
      }
      Quantities declined = Quantities.NONE;
      for (OfferID offerId : offerIds) {
        Optional<OutstandingOffer> o = offers.get(offerId.getValue());
        if (o.isPresent() && o.get().framework().equals(id)) {
          offers.remove(offerId.getValue());
          declined = declined.plus(o.get().amounts());
        }
      }
      addFilter(fw, declined, filters, hasFilters);
    }
    queueAllocation();
  }

  @GuardedBy("lock")
  private void addFilter(Framework fw, Quantities declined, Filters filters, boolean hasFilters) {
    double seconds =
        DeclineFilter.refuseSeconds(
            hasFilters && filters.hasRefuseSeconds(), filters.getRefuseSeconds());
    if (seconds > 0 && !declined.isEmpty()) {
      fw.filters.add(
          new DeclineFilter(declined, clock.instant().plusMillis((long) (seconds * 1000))));
    }
  }

  private void revive(FrameworkID id, List<String> roles) {
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      if (fw == null) {
        return;
      }
      if (roles.isEmpty()) {
        fw.suppressedRoles.clear();
      } else {
        roles.forEach(fw.suppressedRoles::remove);
      }
      fw.filters.clear();
    }
    queueAllocation();
  }

  private void suppress(FrameworkID id, List<String> roles) {
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      if (fw != null) {
        fw.suppressedRoles.addAll(roles.isEmpty() ? fw.roles() : roles);
      }
    }
  }

  private void kill(FrameworkID id, Call.Kill kill) {
    synchronized (lock) {
      // Between the lease and the executor side: the kill waits for the launch.
      Holder.MesosTask key = new Holder.MesosTask(id.getValue(), kill.getTaskId().getValue());
      if (launching.containsKey(key)) {
        killsWhileLaunching.put(
            key, kill.hasKillPolicy() ? Optional.of(kill.getKillPolicy()) : Optional.empty());
        return;
      }
    }
    Optional<TaskView> task = book.task(id, kill.getTaskId());
    if (task.isPresent() && !task.get().isTerminal()) {
      launcher.kill(
          id,
          kill.getTaskId(),
          kill.hasKillPolicy()
              ? Optional.of(kill.getKillPolicy())
              : task.get().task().hasKillPolicy()
                  ? Optional.of(task.get().task().getKillPolicy())
                  : Optional.empty());
      return;
    }
    // Mesos answers a KILL of a task it does not run with a reconciliation update.
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      if (fw != null) {
        sendLocked(fw, update(reconcileOne(fw, kill.getTaskId(), kill.getAgentId())));
      }
    }
  }

  private void reconcile(FrameworkID id, Call.Reconcile reconcile) {
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      if (fw == null) {
        return;
      }
      if (reconcile.getTasksCount() == 0) {
        for (TaskView t : book.tasks()) {
          if (t.frameworkId().equals(id.getValue()) && !t.isTerminal()) {
            sendLocked(fw, update(Reconciliation.known(t.latest())));
          }
        }
        return;
      }
      for (Call.Reconcile.Task t : reconcile.getTasksList()) {
        sendLocked(fw, update(reconcileOne(fw, t.getTaskId(), t.getAgentId())));
      }
    }
  }

  @GuardedBy("lock")
  private TaskStatus reconcileOne(Framework fw, TaskID task, AgentID named) {
    Optional<TaskView> known = book.task(fw.id, task);
    if (known.isPresent() && (named.getValue().isEmpty() || named.equals(agentId))) {
      return Reconciliation.known(known.get().latest());
    }
    return Reconciliation.unknown(fw.info, task, named, agentId, clock.millis() / 1000.0);
  }

  // ---------------------------------------------------------------------------------------------
  // ACCEPT

  /** One operation's tasks that passed validation, with their devices and lease. */
  private record Planned(
      Optional<ExecutorInfo> executor, List<LaunchedTask> tasks, boolean group, long version) {}

  private void accept(FrameworkID id, Call.Accept accept) {
    List<Planned> planned = new ArrayList<>();
    FrameworkInfo info;
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      if (fw == null) {
        return;
      }
      info = fw.info;
      List<OutstandingOffer> used = new ArrayList<>();
      Optional<String> offerError = takeOffers(fw, accept.getOfferIdsList(), used);
      if (offerError.isPresent()) {
        TaskState state =
            fw.has(FrameworkInfo.Capability.Type.PARTITION_AWARE)
                ? TaskState.TASK_DROPPED
                : TaskState.TASK_LOST;
        for (TaskInfo t : tasksOf(accept.getOperationsList())) {
          sendLocked(
              fw,
              update(
                  masterStatus(
                      t,
                      state,
                      TaskStatus.Reason.REASON_INVALID_OFFERS,
                      "Task launched with invalid offers: " + offerError.get())));
        }
        queueAllocation();
        return;
      }
      Quantities pool = Quantities.NONE;
      Map<String, List<String>> poolDevices = new LinkedHashMap<>();
      for (OutstandingOffer o : used) {
        pool = pool.plus(o.amounts());
        o.devices()
            .forEach(
                (n, ids) -> poolDevices.computeIfAbsent(n, k -> new ArrayList<>()).addAll(ids));
      }
      AcceptValidator validator =
          new AcceptValidator(
              agentId,
              pool,
              poolDevices.keySet(),
              task ->
                  book.task(id, task).filter(t -> !t.isTerminal()).isPresent()
                      || launching.containsKey(
                          new Holder.MesosTask(id.getValue(), task.getValue())),
              new HashSet<>(launcher.executorsOf(id)));
      Inventory inventory = ledger.current().inventory();
      Set<String> taken = new HashSet<>();
      Quantities consumed = Quantities.NONE;
      String why = "ACCEPT of " + used.stream().map(OutstandingOffer::id).toList();
      for (Offer.Operation op : accept.getOperationsList()) {
        List<TaskVerdict> verdicts;
        Optional<ExecutorInfo> groupExecutor = Optional.empty();
        if (op.getType() == Offer.Operation.Type.LAUNCH) {
          verdicts = validator.launch(op.getLaunch().getTaskInfosList());
        } else if (op.getType() == Offer.Operation.Type.LAUNCH_GROUP) {
          groupExecutor = Optional.of(op.getLaunchGroup().getExecutor());
          verdicts =
              validator.launchGroup(
                  op.getLaunchGroup().getExecutor(),
                  op.getLaunchGroup().getTaskGroup().getTasksList());
        } else {
          log.info(
              "Framework {} asked for a {} operation, which this agent does not support; ignored",
              id.getValue(),
              op.getType());
          continue;
        }
        List<LaunchedTask> ok = new ArrayList<>();
        for (TaskVerdict v : verdicts) {
          if (v instanceof TaskVerdict.Refused r) {
            sendLocked(fw, update(masterStatus(r.task(), r.state(), r.reason(), r.message())));
            continue;
          }
          TaskVerdict.Valid valid = (TaskVerdict.Valid) v;
          Optional<List<String>> devices = choose(inventory, poolDevices, taken, valid);
          if (devices.isEmpty()) {
            sendLocked(
                fw,
                update(
                    masterStatus(
                        v.task(),
                        TaskState.TASK_ERROR,
                        TaskStatus.Reason.REASON_TASK_INVALID,
                        "Task uses more devices than its offers hold")));
            continue;
          }
          consumed = consumed.plus(valid.needs());
          List<Device> chosen =
              devices.get().stream().map(d -> inventory.device(d).orElseThrow()).toList();
          ok.add(new LaunchedTask(valid.task(), devices.get(), specs.forDevices(chosen)));
        }
        if (ok.isEmpty()) {
          continue;
        }
        // One atomic lease for the whole operation: a group launches with all its devices or not.
        List<DeviceLedger.Request> requests = new ArrayList<>();
        for (LaunchedTask t : ok) {
          if (!t.deviceIds().isEmpty()) {
            requests.add(
                new DeviceLedger.Request(
                    holder(id, t.task()),
                    t.deviceIds().stream().map(ReplicaId::whole).toList(),
                    why));
          }
        }
        long version = ledger.current().version();
        if (!requests.isEmpty()) {
          LeaseResult result = ledger.lease(requests);
          if (result instanceof LeaseResult.Refused refused) {
            for (LaunchedTask t : ok) {
              sendLocked(
                  fw,
                  update(
                      masterStatus(
                          t.task(),
                          TaskState.TASK_DROPPED,
                          TaskStatus.Reason.REASON_INVALID_OFFERS,
                          "Task launched with invalid offers: " + refused.message())));
            }
            continue;
          }
          version = ((LeaseResult.Granted) result).version();
        }
        for (LaunchedTask t : ok) {
          launching.put(holder(id, t.task()), scalarsOf(t.task().getResourcesList()));
        }
        planned.add(new Planned(groupExecutor, ok, groupExecutor.isPresent(), version));
      }
      addFilter(fw, pool.minus(consumed), accept.getFilters(), accept.hasFilters());
    }
    for (Planned p : planned) {
      launch(id, info, p);
    }
    queueAllocation();
  }

  /**
   * Takes the ACCEPT's offers out of the book. All of them go, valid or not (as in Mesos, an ACCEPT
   * that names a bad offer gives back the good ones).
   */
  @GuardedBy("lock")
  private Optional<String> takeOffers(
      Framework fw, List<OfferID> ids, List<OutstandingOffer> used) {
    Optional<String> error = ids.isEmpty() ? Optional.of("No offers specified") : Optional.empty();
    Set<String> seen = new LinkedHashSet<>();
    for (OfferID offerId : ids) {
      String shown = ClientText.quote(offerId.getValue());
      if (!seen.add(offerId.getValue())) {
        error = error.or(() -> Optional.of("Offer " + shown + " appears more than once"));
        continue;
      }
      Optional<OutstandingOffer> o = offers.get(offerId.getValue());
      if (o.isEmpty()) {
        error = error.or(() -> Optional.of("Offer " + shown + " is no longer valid"));
      } else if (!o.get().framework().equals(fw.id)) {
        error = error.or(() -> Optional.of("Offer " + shown + " has invalid framework"));
      } else {
        offers.remove(offerId.getValue());
        used.add(o.get());
      }
    }
    return error;
  }

  /** The devices of one valid task, chosen among its offers' devices no earlier task took. */
  private Optional<List<String>> choose(
      Inventory inventory,
      Map<String, List<String>> poolDevices,
      Set<String> taken,
      TaskVerdict.Valid task) {
    List<String> chosen = new ArrayList<>();
    for (Map.Entry<String, Integer> need : task.deviceCounts().entrySet()) {
      List<String> free =
          poolDevices.getOrDefault(need.getKey(), List.of()).stream()
              .filter(d -> !taken.contains(d))
              .toList();
      if (free.size() < need.getValue()) {
        return Optional.empty();
      }
      List<String> picked = chooser.choose(inventory, free, List.of(), need.getValue());
      if (picked.size() != need.getValue() || !free.containsAll(picked)) {
        return Optional.empty();
      }
      chosen.addAll(picked);
    }
    taken.addAll(chosen);
    return Optional.of(chosen);
  }

  /** After the lease: persisted, recorded in the book, then handed to the executor side. */
  private void launch(FrameworkID id, FrameworkInfo info, Planned p) {
    List<LaunchedTask> recorded = new ArrayList<>();
    Optional<String> failure = Optional.empty();
    try {
      if (!ledger.awaitPersisted(p.version(), PERSIST_TIMEOUT)) {
        failure = Optional.of("the agent could not persist the device lease in time");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = Optional.of("the agent was interrupted while persisting the device lease");
    }
    if (failure.isEmpty()) {
      for (LaunchedTask t : p.tasks()) {
        try {
          book.record(
              info,
              t,
              executorOf(t.task(), p.executor()),
              p.executor()
                  .or(
                      () ->
                          Optional.ofNullable(
                              t.task().hasExecutor() ? t.task().getExecutor() : null)));
          recorded.add(t);
        } catch (IOException e) {
          log.error("Could not record task {} in the task book", t.task().getTaskId(), e);
          failure = Optional.of("the agent could not checkpoint the task: " + e.getMessage());
          break;
        }
      }
    }
    List<TaskStatus> dropped = new ArrayList<>();
    if (failure.isPresent()) {
      // Nothing of the operation runs: a group is all or nothing, and so is its lease.
      for (LaunchedTask t : p.tasks()) {
        if (recorded.contains(t)) {
          book.update(
              id,
              masterStatus(
                  t.task(),
                  TaskState.TASK_DROPPED,
                  TaskStatus.Reason.REASON_INVALID_OFFERS,
                  "Task dropped: " + failure.get()));
        } else {
          ledger.release(holder(id, t.task()));
          dropped.add(
              masterStatus(
                  t.task(),
                  TaskState.TASK_DROPPED,
                  TaskStatus.Reason.REASON_INVALID_OFFERS,
                  "Task dropped: " + failure.get()));
        }
      }
    }
    synchronized (lock) {
      Framework fw = frameworks.get(id.getValue());
      if (fw != null) {
        dropped.forEach(s -> sendLocked(fw, update(s)));
      }
    }
    if (failure.isEmpty()) {
      handOver(info, p);
    }
    Map<Holder.MesosTask, Optional<KillPolicy>> kills = new HashMap<>();
    synchronized (lock) {
      for (LaunchedTask t : p.tasks()) {
        Holder.MesosTask key = holder(id, t.task());
        launching.remove(key);
        Optional<KillPolicy> policy = killsWhileLaunching.remove(key);
        if (policy != null && failure.isEmpty()) {
          kills.put(key, policy);
        }
      }
    }
    kills.forEach(
        (key, policy) ->
            launcher.kill(id, TaskID.newBuilder().setValue(key.taskId()).build(), policy));
  }

  /**
   * Hands the tasks to the containers: a group as one launch under its executor; each task of a
   * LAUNCH under the executor its own TaskInfo names, or the command executor when it names none (a
   * LAUNCH may mix both, and each custom executor must get its own tasks).
   */
  private void handOver(FrameworkInfo info, Planned p) {
    if (p.group()) {
      launcher.launch(new Launch(info, agentInfo, p.executor(), p.tasks(), true));
      return;
    }
    for (LaunchedTask t : p.tasks()) {
      Optional<ExecutorInfo> executor =
          t.task().hasExecutor() ? Optional.of(t.task().getExecutor()) : Optional.empty();
      launcher.launch(new Launch(info, agentInfo, executor, List.of(t), false));
    }
  }

  /** A command task runs under the command executor, whose ID is the task's (as in Mesos). */
  private static ExecutorID executorOf(TaskInfo task, Optional<ExecutorInfo> group) {
    if (group.isPresent()) {
      return group.get().getExecutorId();
    }
    if (task.hasExecutor()) {
      return task.getExecutor().getExecutorId();
    }
    return ExecutorID.newBuilder().setValue(task.getTaskId().getValue()).build();
  }

  private static Holder.MesosTask holder(FrameworkID id, TaskInfo task) {
    return new Holder.MesosTask(id.getValue(), task.getTaskId().getValue());
  }

  private static List<TaskInfo> tasksOf(List<Offer.Operation> ops) {
    List<TaskInfo> tasks = new ArrayList<>();
    for (Offer.Operation op : ops) {
      if (op.getType() == Offer.Operation.Type.LAUNCH) {
        tasks.addAll(op.getLaunch().getTaskInfosList());
      } else if (op.getType() == Offer.Operation.Type.LAUNCH_GROUP) {
        tasks.addAll(op.getLaunchGroup().getTaskGroup().getTasksList());
      }
    }
    return tasks;
  }

  private TaskStatus masterStatus(
      TaskInfo task, TaskState state, TaskStatus.Reason reason, String message) {
    return TaskStatus.newBuilder()
        .setTaskId(task.getTaskId())
        .setState(state)
        .setReason(reason)
        .setSource(TaskStatus.Source.SOURCE_MASTER)
        .setMessage(message)
        .setAgentId(agentId)
        .setTimestamp(clock.millis() / 1000.0)
        .build();
  }

  // ---------------------------------------------------------------------------------------------
  // Offers

  /** Only CPUs, memory and disk: devices are accounted by the ledger. */
  private static Quantities scalarsOf(List<io.acceld.proto.mesos.v1.Resource> resources) {
    Quantities all = Quantities.ofScalars(resources);
    Map<String, Double> kept = new HashMap<>();
    for (String name : Reserve.NAMES) {
      kept.put(name, all.get(name));
    }
    return new Quantities(kept);
  }

  /** What live tasks, launches in flight and outstanding offers leave of CPUs, memory, disk. */
  @GuardedBy("lock")
  private Quantities freeScalars(boolean countOffers) {
    Quantities used = Quantities.NONE;
    Set<Holder.MesosTask> counted = new HashSet<>();
    // A custom executor's own resources are in use once, however many of its tasks run.
    Set<String> executors = new HashSet<>();
    for (TaskView t : book.tasks()) {
      if (!t.isTerminal()) {
        used = used.plus(scalarsOf(t.task().getResourcesList()));
        counted.add(t.holder());
        if (t.executorInfo().isPresent()
            && executors.add(t.frameworkId() + "/" + t.executor().getValue())) {
          used = used.plus(scalarsOf(t.executorInfo().get().getResourcesList()));
        }
      }
    }
    for (Map.Entry<Holder.MesosTask, Quantities> e : launching.entrySet()) {
      if (!counted.contains(e.getKey())) {
        used = used.plus(e.getValue());
      }
    }
    Quantities free = nodeScalars.minus(used);
    return countOffers ? free.minus(offers.offered()) : free;
  }

  private void queueAllocation() {
    if (allocationQueued.compareAndSet(false, true)) {
      try {
        timers.execute(
            () -> {
              allocationQueued.set(false);
              allocateSafely();
            });
      } catch (RejectedExecutionException closed) {
        // shutting down
      }
    }
  }

  private void allocateSafely() {
    try {
      allocate();
    } catch (RuntimeException e) {
      log.error("Making offers failed", e);
    }
  }

  /**
   * Offers everything free to one framework at a time, taking turns, as Mesos's allocator does with
   * a single agent: connected, no outstanding offer, a role not suppressed, not held back by a
   * filter, and (with the GPU filter on) GPU_RESOURCES if the node has GPUs.
   */
  private void allocate() {
    if (!mayOffer.getAsBoolean()) {
      return;
    }
    synchronized (lock) {
      // Read under the lock: an ACCEPT leases under it, and an availability read before it would
      // offer the devices that ACCEPT just leased.
      Availability availability = ledger.current();
      Inventory inventory = availability.inventory();
      boolean hasGpus = DeviceResources.hasGpus(inventory);
      List<Attribute> attributes = NodeAttributes.of(inventory);
      Set<String> offered = offers.offeredDevices();
      List<Device> free =
          inventory.devices().stream()
              .filter(availability::isAvailable)
              .filter(d -> !offered.contains(d.id()))
              .toList();
      Map<String, List<String>> devices = DeviceResources.byName(free);
      Quantities candidate = freeScalars(true);
      for (Map.Entry<String, List<String>> e : devices.entrySet()) {
        candidate = candidate.plus(Quantities.of(e.getKey(), e.getValue().size()));
      }
      if (devices.isEmpty() && candidate.get("cpus") < MIN_CPUS && candidate.get("mem") < MIN_MEM) {
        return;
      }
      List<Framework> order = new ArrayList<>(frameworks.values());
      if (order.isEmpty()) {
        return;
      }
      Instant now = clock.instant();
      int first = Math.floorMod(nextFirst, order.size());
      for (int i = 0; i < order.size(); i++) {
        Framework fw = order.get((first + i) % order.size());
        if (!fw.isConnected() || offers.hasOffer(fw.id)) {
          continue;
        }
        if (filterGpuResources && hasGpus && !fw.has(FrameworkInfo.Capability.Type.GPU_RESOURCES)) {
          continue;
        }
        Optional<String> role = fw.offerableRole();
        if (role.isEmpty() || fw.filtered(candidate, now)) {
          continue;
        }
        Offer offer =
            offerFactory.build(
                OfferID.newBuilder().setValue(offers.newId()).build(),
                fw,
                role.get(),
                candidate,
                attributes,
                launcher.executorsOf(fw.id));
        offers.add(new OutstandingOffer(offer, role.get(), candidate, devices));
        nextFirst = first + i + 1;
        sendLocked(
            fw,
            Event.newBuilder()
                .setType(Event.Type.OFFERS)
                .setOffers(Event.Offers.newBuilder().addOffers(offer))
                .build());
        return; // everything free went to this framework
      }
    }
  }

  /**
   * A change the Mesos side did not make (health, presence, a kubelet lease): every outstanding
   * offer with a device that is no longer available is rescinded, and what is left re-offered.
   */
  private void onAvailability(Availability availability) {
    List<Sent> rescinds = new ArrayList<>();
    synchronized (lock) {
      for (OutstandingOffer o : offers.all()) {
        boolean stale = false;
        for (String id : o.allDevices()) {
          Optional<Device> d = availability.inventory().device(id);
          if (d.isEmpty() || !availability.isAvailable(d.get())) {
            stale = true;
            break;
          }
        }
        Framework fw = frameworks.get(o.framework().getValue());
        if (stale) {
          offers.remove(o.id());
          if (fw != null) {
            rescinds.add(new Sent(fw, rescind(o)));
          }
        }
      }
      rescinds.forEach(Sent::send);
    }
    queueAllocation();
  }

  private Event rescind(OutstandingOffer o) {
    rescinded.incrementAndGet();
    return Event.newBuilder()
        .setType(Event.Type.RESCIND)
        .setRescind(Event.Rescind.newBuilder().setOfferId(o.offer().getId()))
        .build();
  }

  // ---------------------------------------------------------------------------------------------
  // Events

  /** An event for a framework, sent once its batch is decided. */
  private record Sent(Framework framework, Event event) {
    void send() {
      framework.subscription.ifPresent(s -> s.send(event));
    }
  }

  @GuardedBy("lock")
  private static void sendLocked(Framework fw, Event event) {
    fw.subscription.ifPresent(s -> s.send(event));
  }

  private static Event update(TaskStatus status) {
    return Event.newBuilder()
        .setType(Event.Type.UPDATE)
        .setUpdate(Event.Update.newBuilder().setStatus(status))
        .build();
  }

  private static Event error(String message) {
    return Event.newBuilder()
        .setType(Event.Type.ERROR)
        .setError(Event.Error.newBuilder().setMessage(message))
        .build();
  }

  /** What the task book sends up: through the framework's current subscription. */
  private final class Forwarder implements StatusForwarder {
    @Override
    public boolean forward(FrameworkID framework, TaskStatus status) {
      synchronized (lock) {
        Framework fw = frameworks.get(framework.getValue());
        if (fw == null || fw.subscription.isEmpty()) {
          return false;
        }
        return fw.subscription.get().send(update(status));
      }
    }

    @Override
    public void message(FrameworkID framework, ExecutorID executor, ByteString data) {
      synchronized (lock) {
        Framework fw = frameworks.get(framework.getValue());
        if (fw != null) {
          sendLocked(
              fw,
              Event.newBuilder()
                  .setType(Event.Type.MESSAGE)
                  .setMessage(
                      Event.Message.newBuilder()
                          .setAgentId(agentId)
                          .setExecutorId(executor)
                          .setData(data))
                  .build());
        }
      }
    }

    @Override
    public void released(Holder.MesosTask task) {
      queueAllocation();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // State

  /** {@code GET /state}: the agent, its total and free resources, frameworks, tasks, devices. */
  public String stateJson() {
    Availability availability = ledger.current();
    synchronized (lock) {
      return MasterState.render(
          masterInfo,
          agentInfo,
          nodeScalars,
          freeScalars(false),
          availability,
          frameworks.values(),
          offers.all(),
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
    List<Subscription> open = new ArrayList<>();
    synchronized (lock) {
      frameworks.values().forEach(f -> f.subscription.ifPresent(open::add));
    }
    timers.shutdownNow();
    open.forEach(Subscription::end);
  }
}
