package io.acceld.mesos.tasks;

import io.acceld.ledger.Holder;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import java.util.List;
import java.util.Optional;

/**
 * One task as the book holds it, at one instant.
 *
 * @param framework the framework's info when the task was launched (its {@code id} set)
 * @param executor the executor it runs under (for a command task, the command executor's ID)
 * @param executorInfo the custom executor it runs under, whose resources it shares with the
 *     executor's other tasks; empty for a command task
 * @param deviceIds the physical devices it holds
 * @param latest the newest status the task reported (or the book made up: TASK_STAGING)
 * @param unacknowledged statuses not yet acknowledged by the scheduler, oldest first
 */
public record TaskView(
    FrameworkInfo framework,
    TaskInfo task,
    ExecutorID executor,
    Optional<ExecutorInfo> executorInfo,
    List<String> deviceIds,
    TaskStatus latest,
    int unacknowledged) {
  public TaskView {
    deviceIds = List.copyOf(deviceIds);
  }

  public String frameworkId() {
    return framework.getId().getValue();
  }

  public String taskId() {
    return task.getTaskId().getValue();
  }

  public TaskState state() {
    return latest.getState();
  }

  public boolean isTerminal() {
    return TaskStates.isTerminal(latest.getState());
  }

  public Holder.MesosTask holder() {
    return new Holder.MesosTask(frameworkId(), taskId());
  }
}
