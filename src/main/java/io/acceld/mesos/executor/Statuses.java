package io.acceld.mesos.executor;

import com.google.protobuf.ByteString;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.ContainerID;
import io.acceld.proto.mesos.v1.ContainerStatus;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;

/** Builds the statuses the agent's side originates, each with a fresh UUID and a timestamp. */
final class Statuses {
  static final Set<TaskState> TERMINAL =
      EnumSet.of(
          TaskState.TASK_FINISHED,
          TaskState.TASK_FAILED,
          TaskState.TASK_KILLED,
          TaskState.TASK_LOST,
          TaskState.TASK_ERROR,
          TaskState.TASK_DROPPED,
          TaskState.TASK_GONE,
          TaskState.TASK_GONE_BY_OPERATOR);

  private final Clock clock;

  Statuses(Clock clock) {
    this.clock = clock;
  }

  static boolean isTerminal(TaskState state) {
    return TERMINAL.contains(state);
  }

  /**
   * A status of one task of a container.
   *
   * @param source SOURCE_EXECUTOR for the built-in command executor's, SOURCE_AGENT for what the
   *     agent says about a custom executor's task (it timed out, it died)
   * @param pid the container's process, when it has one
   */
  TaskStatus.Builder status(
      TaskID task,
      TaskState state,
      ExecutorID executor,
      AgentID agent,
      TaskStatus.Source source,
      String containerId,
      long pid) {
    Instant now = clock.instant();
    ContainerStatus.Builder container =
        ContainerStatus.newBuilder().setContainerId(ContainerID.newBuilder().setValue(containerId));
    if (pid > 0) {
      container.setExecutorPid((int) pid);
    }
    return TaskStatus.newBuilder()
        .setTaskId(task)
        .setState(state)
        .setExecutorId(executor)
        .setAgentId(agent)
        .setSource(source)
        .setTimestamp(now.getEpochSecond() + now.getNano() / 1e9)
        .setUuid(randomUuid())
        .setContainerStatus(container);
  }

  static ByteString randomUuid() {
    UUID uuid = UUID.randomUUID();
    ByteBuffer bytes = ByteBuffer.allocate(16);
    bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return ByteString.copyFrom(bytes.array());
  }
}
