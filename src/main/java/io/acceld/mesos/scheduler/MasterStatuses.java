package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import java.time.Clock;

/** The statuses the master itself gives a task it will not run (SOURCE_MASTER). */
final class MasterStatuses {
  private final AgentID agentId;
  private final Clock clock;

  MasterStatuses(AgentID agentId, Clock clock) {
    this.agentId = agentId;
    this.clock = clock;
  }

  TaskStatus status(TaskInfo task, TaskState state, TaskStatus.Reason reason, String message) {
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
}
