package io.acceld.mesos.scheduler;

import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.mesos.tasks.Launch;
import io.acceld.mesos.tasks.LaunchedTask;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.mesos.tasks.TaskLauncher;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.util.ClientText;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An ACCEPT's operation after its lease: the lease persisted, the tasks recorded in the task book,
 * then handed to the executor side, then the KILLs that arrived meanwhile delivered. In this order,
 * so that after a crash at any point a lease without a task is released on recovery and a task is
 * never without its lease. Nothing of an operation runs if any step fails.
 *
 * <p>Runs without the master's lock but for two short steps: {@code lock} is the master's one lock
 * (see {@link MesosMaster}), passed in, and guards the {@link FrameworkTable} (to tell a framework
 * what was dropped) and the {@link LaunchesInFlight} the operation leaves.
 */
final class LaunchAfterLease {
  private static final Logger log = LoggerFactory.getLogger(LaunchAfterLease.class);

  static final Duration PERSIST_TIMEOUT = Duration.ofSeconds(10);

  private final Object lock;

  @GuardedBy("lock")
  private final FrameworkTable frameworks;

  @GuardedBy("lock")
  private final LaunchesInFlight launches;

  private final DeviceLedger ledger;
  private final TaskBook book;
  private final TaskLauncher launcher;
  private final AgentInfo agentInfo;
  private final MasterStatuses statuses;

  LaunchAfterLease(
      Object lock,
      FrameworkTable frameworks,
      LaunchesInFlight launches,
      DeviceLedger ledger,
      TaskBook book,
      TaskLauncher launcher,
      AgentInfo agentInfo,
      MasterStatuses statuses) {
    this.lock = lock;
    this.frameworks = frameworks;
    this.launches = launches;
    this.ledger = ledger;
    this.book = book;
    this.launcher = launcher;
    this.agentInfo = agentInfo;
    this.statuses = statuses;
  }

  /** Persisted, recorded in the book, then handed to the executor side. */
  void launch(FrameworkID id, FrameworkInfo info, PlannedLaunch p) {
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
      List<TaskBook.NewTask> tasks = new ArrayList<>();
      for (LaunchedTask t : p.tasks()) {
        tasks.add(
            new TaskBook.NewTask(
                t,
                executorOf(t.task(), p.executor()),
                p.executor()
                    .or(
                        () ->
                            Optional.ofNullable(
                                t.task().hasExecutor() ? t.task().getExecutor() : null))));
      }
      try {
        // One force for the whole operation; all or none of its tasks recorded.
        book.recordAll(info, tasks);
        recorded.addAll(p.tasks());
      } catch (IOException e) {
        // Task IDs are a scheduler's text: quoted and escaped, and at most ten of a large group.
        log.error(
            "Could not record {} task(s) {} in the task book",
            p.tasks().size(),
            p.tasks().stream()
                .limit(10)
                .map(t -> ClientText.quote(t.task().getTaskId().getValue()))
                .toList(),
            e);
        failure = Optional.of("the agent could not checkpoint the task: " + e.getMessage());
      }
    }
    List<TaskStatus> dropped = new ArrayList<>();
    if (failure.isPresent()) {
      // Nothing of the operation runs: a group is all or nothing, and so is its lease.
      for (LaunchedTask t : p.tasks()) {
        TaskStatus status =
            statuses.status(
                t.task(),
                TaskState.TASK_DROPPED,
                TaskStatus.Reason.REASON_INVALID_OFFERS,
                "Task dropped: " + failure.get());
        if (recorded.contains(t)) {
          book.update(id, status);
        } else {
          ledger.release(OperationLease.holder(id, t.task()));
          dropped.add(status);
        }
      }
    }
    synchronized (lock) {
      Framework fw = frameworks.get(id);
      if (fw != null) {
        dropped.forEach(s -> fw.send(SchedulerEvents.update(s)));
      }
    }
    if (failure.isEmpty()) {
      handOver(info, p);
    }
    Map<Holder.MesosTask, LaunchesInFlight.DeferredKill> kills = new HashMap<>();
    synchronized (lock) {
      for (LaunchedTask t : p.tasks()) {
        Holder.MesosTask key = OperationLease.holder(id, t.task());
        Optional<LaunchesInFlight.DeferredKill> kill = launches.end(key);
        if (kill.isPresent() && failure.isEmpty()) {
          kills.put(key, kill.get());
        }
      }
    }
    kills.forEach(
        (key, kill) ->
            launcher.kill(id, TaskID.newBuilder().setValue(key.taskId()).build(), kill.policy()));
  }

  /**
   * Hands the tasks to the containers: a group as one launch under its executor; each task of a
   * LAUNCH under the executor its own TaskInfo names, or the command executor when it names none (a
   * LAUNCH may mix both, and each custom executor must get its own tasks).
   */
  private void handOver(FrameworkInfo info, PlannedLaunch p) {
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
  static ExecutorID executorOf(TaskInfo task, Optional<ExecutorInfo> group) {
    if (group.isPresent()) {
      return group.get().getExecutorId();
    }
    if (task.hasExecutor()) {
      return task.getExecutor().getExecutorId();
    }
    return ExecutorID.newBuilder().setValue(task.getTaskId().getValue()).build();
  }
}
