package io.acceld.mesos.tasks;

import io.acceld.proto.mesos.v1.TaskState;
import java.util.EnumSet;
import java.util.Set;

/** Which task states end a task, as Mesos's {@code protobuf::isTerminalState} says. */
public final class TaskStates {
  // TASK_LOST counts: on this node a lost task's process is gone, so its devices are free.
  private static final Set<TaskState> TERMINAL =
      EnumSet.of(
          TaskState.TASK_FINISHED,
          TaskState.TASK_FAILED,
          TaskState.TASK_KILLED,
          TaskState.TASK_ERROR,
          TaskState.TASK_LOST,
          TaskState.TASK_DROPPED,
          TaskState.TASK_GONE,
          TaskState.TASK_GONE_BY_OPERATOR);

  private TaskStates() {}

  public static boolean isTerminal(TaskState state) {
    return TERMINAL.contains(state);
  }
}
