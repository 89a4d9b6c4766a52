package io.acceld.mesos.scheduler;

import io.acceld.ledger.Holder;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.mesos.tasks.TaskLauncher;
import io.acceld.mesos.tasks.TaskView;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.util.GuardedBy;
import java.time.Clock;
import java.util.Optional;

/**
 * KILL and RECONCILE: a KILL goes to the executor side, waits for a launch in flight, or (for a
 * task the agent does not run) is answered with a reconciliation update, as Mesos does.
 *
 * <p>{@code lock} is the master's one lock (see {@link MesosMaster}), passed in: it guards the
 * {@link FrameworkTable} and the {@link LaunchesInFlight} read here. The executor side is called
 * without it.
 */
final class TaskCalls {
  private final Object lock;

  @GuardedBy("lock")
  private final FrameworkTable frameworks;

  @GuardedBy("lock")
  private final LaunchesInFlight launches;

  private final TaskBook book;
  private final TaskLauncher launcher;
  private final AgentID agentId;
  private final Clock clock;

  TaskCalls(
      Object lock,
      FrameworkTable frameworks,
      LaunchesInFlight launches,
      TaskBook book,
      TaskLauncher launcher,
      AgentID agentId,
      Clock clock) {
    this.lock = lock;
    this.frameworks = frameworks;
    this.launches = launches;
    this.book = book;
    this.launcher = launcher;
    this.agentId = agentId;
    this.clock = clock;
  }

  void kill(FrameworkID id, Call.Kill kill) {
    synchronized (lock) {
      // Between the lease and the executor side: the kill waits for the launch.
      Holder.MesosTask key = new Holder.MesosTask(id.getValue(), kill.getTaskId().getValue());
      if (launches.deferKill(
          key, kill.hasKillPolicy() ? Optional.of(kill.getKillPolicy()) : Optional.empty())) {
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
      Framework fw = frameworks.get(id);
      if (fw != null) {
        fw.send(SchedulerEvents.update(reconcileOne(fw, kill.getTaskId(), kill.getAgentId())));
      }
    }
  }

  void reconcile(FrameworkID id, Call.Reconcile reconcile) {
    synchronized (lock) {
      Framework fw = frameworks.get(id);
      if (fw == null) {
        return;
      }
      if (reconcile.getTasksCount() == 0) {
        for (TaskView t : book.tasks()) {
          if (t.frameworkId().equals(id.getValue()) && !t.isTerminal()) {
            fw.send(SchedulerEvents.update(Reconciliation.known(t.latest())));
          }
        }
        return;
      }
      for (Call.Reconcile.Task t : reconcile.getTasksList()) {
        fw.send(SchedulerEvents.update(reconcileOne(fw, t.getTaskId(), t.getAgentId())));
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
}
