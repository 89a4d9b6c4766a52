package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;

/**
 * The statuses the master answers RECONCILE (and a KILL of a task it does not run) with: no uuid,
 * so nobody acknowledges them; SOURCE_MASTER; REASON_RECONCILIATION (master.cpp L8927-9130).
 */
final class Reconciliation {
  private Reconciliation() {}

  /** The task's latest state as the book has it. */
  static TaskStatus known(TaskStatus latest) {
    return latest.toBuilder()
        .clearUuid()
        .setSource(TaskStatus.Source.SOURCE_MASTER)
        .setReason(TaskStatus.Reason.REASON_RECONCILIATION)
        .setMessage("Reconciliation: Latest task state")
        .build();
  }

  /**
   * A task this agent does not have. On this (registered, single) agent that means it is gone:
   * TASK_GONE for a PARTITION_AWARE framework, TASK_LOST for the others. A task named on another
   * agent is TASK_UNKNOWN (or TASK_LOST): this master cannot say anything about it.
   */
  static TaskStatus unknown(
      FrameworkInfo framework, TaskID task, AgentID named, AgentID ours, double now) {
    boolean partitionAware =
        framework.getCapabilitiesList().stream()
            .anyMatch(c -> c.getType() == FrameworkInfo.Capability.Type.PARTITION_AWARE);
    boolean here = named.getValue().isEmpty() || named.equals(ours);
    TaskState state =
        !partitionAware ? TaskState.TASK_LOST : here ? TaskState.TASK_GONE : TaskState.TASK_UNKNOWN;
    TaskStatus.Builder b =
        TaskStatus.newBuilder()
            .setTaskId(task)
            .setState(state)
            .setSource(TaskStatus.Source.SOURCE_MASTER)
            .setReason(TaskStatus.Reason.REASON_RECONCILIATION)
            .setMessage("Reconciliation: Task is unknown to the agent")
            .setTimestamp(now);
    if (here) {
      b.setAgentId(ours);
    } else {
      b.setAgentId(named);
    }
    return b.build();
  }
}
