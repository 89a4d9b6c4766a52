package io.acceld.mesos.scheduler;

import io.acceld.allocation.DeviceChooser;
import io.acceld.allocation.RuntimeSpecs;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.mesos.tasks.LaunchedTask;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.mesos.tasks.TaskLauncher;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.util.GuardedBy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ACCEPT, in its steps: the offers taken, each operation's tasks validated ({@link
 * AcceptValidator}), their devices chosen ({@link DeviceChoice}) and leased in one ledger call per
 * operation ({@link OperationLease}), then launched ({@link LaunchAfterLease}). A task refused at
 * any step is told so with Mesos's state, reason and text; the rest of its ACCEPT goes on.
 *
 * <p>{@code lock} is the master's one lock (see {@link MesosMaster}), passed in. Every step up to
 * the lease runs under it, in one go, so no offer is built from devices an ACCEPT is leasing and no
 * other ACCEPT takes them; it guards the {@link FrameworkTable}, the {@link OfferDesk}'s book and
 * the {@link LaunchesInFlight} used here. The wait for the lease's checkpoint and the task book
 * come after it is let go: the devices are leased by then, and the launches' CPUs and memory are
 * counted as in flight, so nothing is offered twice meanwhile.
 */
final class AcceptPath {
  private static final Logger log = LoggerFactory.getLogger(AcceptPath.class);

  private final Object lock;

  @GuardedBy("lock")
  private final FrameworkTable frameworks;

  @GuardedBy("lock")
  private final LaunchesInFlight launches;

  private final OfferDesk desk;
  private final DeviceLedger ledger;
  private final DeviceChooser chooser;
  private final RuntimeSpecs specs;
  private final TaskBook book;
  private final TaskLauncher launcher;
  private final AgentID agentId;
  private final MasterStatuses statuses;
  private final OperationLease lease;
  private final LaunchAfterLease afterLease;

  AcceptPath(
      Object lock,
      FrameworkTable frameworks,
      LaunchesInFlight launches,
      OfferDesk desk,
      DeviceLedger ledger,
      DeviceChooser chooser,
      RuntimeSpecs specs,
      TaskBook book,
      TaskLauncher launcher,
      AgentID agentId,
      MasterStatuses statuses,
      LaunchAfterLease afterLease) {
    this.lock = lock;
    this.frameworks = frameworks;
    this.launches = launches;
    this.desk = desk;
    this.ledger = ledger;
    this.chooser = chooser;
    this.specs = specs;
    this.book = book;
    this.launcher = launcher;
    this.agentId = agentId;
    this.statuses = statuses;
    this.lease = new OperationLease(ledger);
    this.afterLease = afterLease;
  }

  /** One operation's verdicts; {@code executor} is a LAUNCH_GROUP's. */
  private record Validated(Optional<ExecutorInfo> executor, List<TaskVerdict> verdicts) {}

  /** The tasks given their devices, and what the ACCEPT's tasks consume so far. */
  private record Chosen(List<LaunchedTask> tasks, Quantities consumed) {}

  void accept(FrameworkID id, Call.Accept accept) {
    List<PlannedLaunch> planned = new ArrayList<>();
    FrameworkInfo info;
    synchronized (lock) {
      Framework fw = frameworks.get(id);
      if (fw == null) {
        return;
      }
      info = fw.info;
      List<OutstandingOffer> used = new ArrayList<>();
      Optional<String> offerError = desk.take(fw, accept.getOfferIdsList(), used);
      if (offerError.isPresent()) {
        refuseAll(fw, accept.getOperationsList(), offerError.get());
        desk.queueAllocation();
        return;
      }
      OfferPool pool = OfferPool.of(used);
      AcceptValidator validator = validator(id, pool);
      Inventory inventory = ledger.current().inventory();
      DeviceChoice choice = new DeviceChoice(chooser, inventory, pool.devices());
      Quantities consumed = Quantities.NONE;
      for (Offer.Operation op : accept.getOperationsList()) {
        Optional<Validated> validated = validate(id, op, validator);
        if (validated.isEmpty()) {
          continue;
        }
        Chosen chosen = chooseDevices(fw, validated.get().verdicts(), choice, inventory, consumed);
        consumed = chosen.consumed();
        if (chosen.tasks().isEmpty()) {
          continue;
        }
        leaseLocked(fw, chosen.tasks(), validated.get().executor(), pool.why())
            .ifPresent(planned::add);
      }
      desk.addFilter(fw, pool.amounts().minus(consumed), accept.getFilters(), accept.hasFilters());
    }
    for (PlannedLaunch p : planned) {
      afterLease.launch(id, info, p);
    }
    desk.queueAllocation();
  }

  /** The ACCEPT named a bad offer: none of its tasks launch (TASK_DROPPED if partition-aware). */
  @GuardedBy("lock")
  private void refuseAll(Framework fw, List<Offer.Operation> ops, String offerError) {
    TaskState state =
        fw.has(FrameworkInfo.Capability.Type.PARTITION_AWARE)
            ? TaskState.TASK_DROPPED
            : TaskState.TASK_LOST;
    for (TaskInfo t : tasksOf(ops)) {
      fw.send(
          SchedulerEvents.update(
              statuses.status(
                  t,
                  state,
                  TaskStatus.Reason.REASON_INVALID_OFFERS,
                  "Task launched with invalid offers: " + offerError)));
    }
  }

  /**
   * Validation against the pool: a task ID may not be live already (in the book or in flight), and
   * an executor already running is not started again.
   */
  @GuardedBy("lock")
  private AcceptValidator validator(FrameworkID id, OfferPool pool) {
    return new AcceptValidator(
        agentId,
        pool.amounts(),
        pool.devices().keySet(),
        task ->
            book.task(id, task).filter(t -> !t.isTerminal()).isPresent()
                || launches.contains(new Holder.MesosTask(id.getValue(), task.getValue())),
        new HashSet<>(launcher.executorsOf(id)));
  }

  /** An operation's verdicts; empty for an operation this agent does not support (ignored). */
  private Optional<Validated> validate(
      FrameworkID id, Offer.Operation op, AcceptValidator validator) {
    if (op.getType() == Offer.Operation.Type.LAUNCH) {
      return Optional.of(
          new Validated(Optional.empty(), validator.launch(op.getLaunch().getTaskInfosList())));
    }
    if (op.getType() == Offer.Operation.Type.LAUNCH_GROUP) {
      return Optional.of(
          new Validated(
              Optional.of(op.getLaunchGroup().getExecutor()),
              validator.launchGroup(
                  op.getLaunchGroup().getExecutor(),
                  op.getLaunchGroup().getTaskGroup().getTasksList())));
    }
    log.info(
        "Framework {} asked for a {} operation, which this agent does not support; ignored",
        id.getValue(),
        op.getType());
    return Optional.empty();
  }

  /**
   * The valid tasks with their devices and runtime; a refused task, or one its offers have too few
   * devices for, is told so and left out.
   */
  @GuardedBy("lock")
  private Chosen chooseDevices(
      Framework fw,
      List<TaskVerdict> verdicts,
      DeviceChoice choice,
      Inventory inventory,
      Quantities consumed) {
    List<LaunchedTask> ok = new ArrayList<>();
    for (TaskVerdict v : verdicts) {
      if (v instanceof TaskVerdict.Refused r) {
        fw.send(
            SchedulerEvents.update(statuses.status(r.task(), r.state(), r.reason(), r.message())));
        continue;
      }
      TaskVerdict.Valid valid = (TaskVerdict.Valid) v;
      Optional<List<String>> devices = choice.choose(valid);
      if (devices.isEmpty()) {
        fw.send(
            SchedulerEvents.update(
                statuses.status(
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
    return new Chosen(ok, consumed);
  }

  /**
   * One atomic lease for the operation's tasks; on a refusal they are dropped with the ledger's
   * reason. Granted, they count as in flight until {@link LaunchAfterLease} is done with them.
   */
  @GuardedBy("lock")
  private Optional<PlannedLaunch> leaseLocked(
      Framework fw, List<LaunchedTask> ok, Optional<ExecutorInfo> groupExecutor, String why) {
    OperationLease.Outcome outcome = lease.lease(fw.id, ok, why);
    if (outcome instanceof OperationLease.Outcome.Refused refused) {
      for (LaunchedTask t : ok) {
        fw.send(
            SchedulerEvents.update(
                statuses.status(
                    t.task(),
                    TaskState.TASK_DROPPED,
                    TaskStatus.Reason.REASON_INVALID_OFFERS,
                    "Task launched with invalid offers: " + refused.message())));
      }
      return Optional.empty();
    }
    long version = ((OperationLease.Outcome.Granted) outcome).version();
    for (LaunchedTask t : ok) {
      launches.begin(
          OperationLease.holder(fw.id, t.task()), OfferDesk.scalarsOf(t.task().getResourcesList()));
    }
    return Optional.of(new PlannedLaunch(groupExecutor, ok, groupExecutor.isPresent(), version));
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
}
