package io.acceld.mesos.scheduler;

import com.google.protobuf.ByteString;
import io.acceld.ledger.Holder;
import io.acceld.mesos.http.EventStream;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.tasks.StatusForwarder;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.mesos.tasks.TaskLauncher;
import io.acceld.mesos.tasks.TaskView;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.MasterInfo;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.util.ClientText;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frameworks' lives: SUBSCRIBE (SUBSCRIBED, then heartbeats), a newer subscription replacing an
 * older one, disconnection and the failover timeout, TEARDOWN, UPDATE_FRAMEWORK, REVIVE and
 * SUPPRESS, which caller a call comes from, and the task book's statuses going up the current
 * subscription.
 *
 * <p>{@code lock} is the master's one lock (see {@link MesosMaster}), passed in: it guards the
 * {@link FrameworkTable} and every {@link Framework} in it, and the {@link OfferDesk}'s book, whose
 * offers of a framework must go in the same step as the framework's subscription does.
 */
final class FrameworkRegistry {
  private static final Logger log = LoggerFactory.getLogger(FrameworkRegistry.class);

  private final Object lock;

  @GuardedBy("lock")
  private final FrameworkTable frameworks;

  private final OfferDesk desk;
  private final MasterIdentity identity;
  private final MasterInfo masterInfo;
  private final AgentID agentId;
  private final Heartbeats heartbeats;
  private final ScheduledExecutorService timers;
  private final TaskBook book;
  private final TaskLauncher launcher;

  /**
   * @param lock the master's one lock (see the class comment)
   * @param timers the master's timer thread: failover timeouts
   */
  FrameworkRegistry(
      Object lock,
      FrameworkTable frameworks,
      OfferDesk desk,
      MasterIdentity identity,
      MasterInfo masterInfo,
      AgentID agentId,
      Heartbeats heartbeats,
      ScheduledExecutorService timers,
      TaskBook book,
      TaskLauncher launcher) {
    this.lock = lock;
    this.frameworks = frameworks;
    this.desk = desk;
    this.identity = identity;
    this.masterInfo = masterInfo;
    this.agentId = agentId;
    this.heartbeats = heartbeats;
    this.timers = timers;
    this.book = book;
    this.launcher = launcher;
  }

  /** A SUBSCRIBE call, already found well-formed. */
  Reply subscribe(Call call, Optional<String> principal) {
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
      Event error = SchedulerEvents.error(refusal.get());
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
      if (info.hasId() && frameworks.wasRemoved(info.getId().getValue())) {
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
      stream.send(
          SchedulerEvents.error(
              "The agent could not persist a new framework ID: " + e.getMessage()));
      stream.close();
      return;
    }
    Subscription subscription = new Subscription(streamId, stream);
    Optional<Subscription> replaced;
    synchronized (lock) {
      Framework fw = frameworks.get(id);
      FrameworkInfo info = requested.toBuilder().setId(id).build();
      if (fw == null) {
        fw = new Framework(id, info);
        frameworks.add(fw);
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
      desk.forget(id);
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
          old.send(SchedulerEvents.error("Framework failed over"));
          old.end();
        });
    stream.onClose(() -> disconnected(id, subscription));
    book.resendUnacknowledged(id);
    desk.queueAllocation();
  }

  /**
   * The frameworks of the tasks that outlived a restart, known again but disconnected: their calls
   * get 403 until they re-subscribe, and they are torn down if they do not within their failover
   * timeout, or {@code window} if that is longer.
   */
  void restore(Duration window) {
    synchronized (lock) {
      for (TaskView task : book.tasks()) {
        if (task.isTerminal() || frameworks.contains(task.frameworkId())) {
          continue;
        }
        FrameworkInfo info = task.framework();
        FrameworkID id = info.getId();
        Framework fw = new Framework(id, info);
        frameworks.add(fw);
        double seconds = Math.max(window.toSeconds(), Math.max(0, info.getFailoverTimeout()));
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
      Framework fw = frameworks.get(id);
      if (fw == null || fw.subscription.isEmpty() || fw.subscription.get() != subscription) {
        return; // replaced by a newer subscription, or torn down
      }
      subscription.end();
      fw.subscription = Optional.empty();
      desk.forget(id);
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
    desk.queueAllocation();
  }

  /** Removes a framework: its executors and tasks are shut down, their leases go as they end. */
  void teardown(FrameworkID id, String why) {
    Optional<Subscription> subscription;
    synchronized (lock) {
      Framework fw = frameworks.remove(id);
      if (fw == null) {
        return;
      }
      if (fw.failover != null) {
        fw.failover.cancel(false);
      }
      subscription = fw.subscription;
      desk.forget(id);
    }
    log.info("Tearing down framework {}: {}", id.getValue(), why);
    subscription.ifPresent(Subscription::end);
    launcher.shutdownFramework(id);
    book.removeFramework(id);
    desk.queueAllocation();
  }

  /**
   * Why a call other than SUBSCRIBE may not be served: the framework is unknown, another principal
   * sent it, it is not subscribed, or the call is not on its current stream. Empty if it may.
   */
  Optional<Reply> refusal(FrameworkID id, Optional<String> streamId, Optional<String> principal) {
    synchronized (lock) {
      Framework fw = frameworks.get(id);
      if (fw == null) {
        return Optional.of(Reply.failure(400, "Framework cannot be found"));
      }
      if (principal.isPresent()
          && fw.info.hasPrincipal()
          && !fw.info.getPrincipal().equals(principal.get())) {
        return Optional.of(
            Reply.failure(
                400,
                "Authenticated principal "
                    + ClientText.quote(principal.get())
                    + " does not match principal "
                    + ClientText.quote(fw.info.getPrincipal())
                    + " set in `FrameworkInfo`"));
      }
      if (fw.subscription.isEmpty()) {
        return Optional.of(Reply.failure(403, "Framework is not subscribed"));
      }
      if (streamId.isEmpty()) {
        return Optional.of(
            Reply.failure(
                400, "All non-subscribe calls should include the 'Mesos-Stream-Id' header"));
      }
      if (!streamId.get().equals(fw.subscription.get().streamId)) {
        return Optional.of(
            Reply.failure(
                400,
                "The stream ID "
                    + ClientText.quote(streamId.get())
                    + " included in this request didn't match the stream ID currently associated"
                    + " with framework ID "
                    + id.getValue()));
      }
    }
    return Optional.empty();
  }

  Reply update(FrameworkID id, Call.UpdateFramework update) {
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
    List<PendingEvent> rescinds = new ArrayList<>();
    synchronized (lock) {
      Framework fw = frameworks.get(id);
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
        rescinds.addAll(desk.rescindAll(fw));
      }
    }
    rescinds.forEach(PendingEvent::send);
    desk.queueAllocation();
    return new Reply.Ok();
  }

  void revive(FrameworkID id, List<String> roles) {
    synchronized (lock) {
      Framework fw = frameworks.get(id);
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
    desk.queueAllocation();
  }

  void suppress(FrameworkID id, List<String> roles) {
    synchronized (lock) {
      Framework fw = frameworks.get(id);
      if (fw != null) {
        fw.suppressedRoles.addAll(roles.isEmpty() ? fw.roles() : roles);
      }
    }
  }

  /** The subscriptions open now, for the master's close. */
  List<Subscription> open() {
    List<Subscription> open = new ArrayList<>();
    synchronized (lock) {
      frameworks.all().forEach(f -> f.subscription.ifPresent(open::add));
    }
    return open;
  }

  /** What the task book sends up: through the framework's current subscription. */
  StatusForwarder forwarder() {
    return new Forwarder();
  }

  private final class Forwarder implements StatusForwarder {
    @Override
    public boolean forward(FrameworkID framework, TaskStatus status) {
      synchronized (lock) {
        Framework fw = frameworks.get(framework);
        if (fw == null || fw.subscription.isEmpty()) {
          return false;
        }
        return fw.subscription.get().send(SchedulerEvents.update(status));
      }
    }

    @Override
    public void message(FrameworkID framework, ExecutorID executor, ByteString data) {
      synchronized (lock) {
        Framework fw = frameworks.get(framework);
        if (fw != null) {
          fw.send(
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
      desk.queueAllocation();
    }
  }
}
