package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import java.util.Map;

/** What validation of an ACCEPT decided for one task. */
sealed interface TaskVerdict {
  TaskInfo task();

  /**
   * The task may launch.
   *
   * @param needs its (and a new executor's) scalar resources
   * @param deviceCounts how many devices of each device resource it needs ({@code gpus: 2})
   */
  record Valid(TaskInfo task, Quantities needs, Map<String, Integer> deviceCounts)
      implements TaskVerdict {
    public Valid {
      deviceCounts = Map.copyOf(deviceCounts);
    }
  }

  /** The task does not launch; the framework is told so with Mesos's state, reason and text. */
  record Refused(TaskInfo task, TaskState state, TaskStatus.Reason reason, String message)
      implements TaskVerdict {}
}
