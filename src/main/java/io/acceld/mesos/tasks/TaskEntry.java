package io.acceld.mesos.tasks;

import io.acceld.ledger.Holder;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.util.Backoff;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;

/**
 * One task's row in the book and its status-update stream. Mutable, and only ever touched with the
 * book's lock held.
 */
final class TaskEntry {
  final FrameworkInfo framework;
  final TaskInfo task;
  final ExecutorID executor;
  final Optional<ExecutorInfo> executorInfo;
  final List<String> deviceIds;
  TaskStatus latest;

  /** Statuses the scheduler has not acknowledged, oldest (the one outstanding) first. */
  final Deque<TaskStatus> pending = new ArrayDeque<>();

  final Backoff backoff;
  ScheduledFuture<?> retry;

  /**
   * A delivery of the head is queued on the sender thread and has not started: it reads the head
   * when it runs, so a second one queued meanwhile would only put the same update up again.
   */
  boolean deliveryQueued;

  /**
   * The task journal's record the head must be durable with before it is sent: the one that made it
   * the head. 0 (durable) for a row read back from disk.
   */
  long headSeq;

  /** The framework was torn down: nothing more goes up, the row goes once the task ends. */
  boolean orphaned;

  TaskEntry(
      FrameworkInfo framework,
      TaskInfo task,
      ExecutorID executor,
      Optional<ExecutorInfo> executorInfo,
      List<String> deviceIds,
      TaskStatus latest,
      Backoff backoff) {
    this.framework = framework;
    this.task = task;
    this.executor = executor;
    this.executorInfo = executorInfo;
    this.deviceIds = List.copyOf(deviceIds);
    this.latest = latest;
    this.backoff = backoff;
  }

  Holder.MesosTask holder() {
    return new Holder.MesosTask(framework.getId().getValue(), task.getTaskId().getValue());
  }

  boolean isTerminal() {
    return TaskStates.isTerminal(latest.getState());
  }

  TaskView view() {
    return new TaskView(framework, task, executor, executorInfo, deviceIds, latest, pending.size());
  }

  void cancelRetry() {
    if (retry != null) {
      retry.cancel(false);
      retry = null;
    }
  }
}
