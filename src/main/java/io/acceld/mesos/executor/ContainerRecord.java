package io.acceld.mesos.executor;

import io.acceld.mesos.containment.DeviceNode;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.TaskInfo;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the agent must know about a container to find it again after a restart: whose it is, its
 * tasks, and its process by pid and start time.
 *
 * @param containerId the agent's own ID for the container (also its sandbox's name)
 * @param executor the custom executor; empty for a command task (one task, the built-in executor)
 * @param tasks the container's tasks as launched, those known to have ended left out
 * @param reported the tasks a custom executor has sent a status for (no longer staging: it knows
 *     them), so that a re-subscription after a restart does not take them for lost
 * @param startTime the process's start time, so a reused pid is not taken for it; {@link
 *     Instant#EPOCH} if the system did not say (such a process is never re-attached)
 * @param token a custom executor's API token, which it keeps across agent restarts; empty for a
 *     command task (no executor process calls the API) and in records of older agents
 * @param denied the accelerator nodes its fence denies ({@link
 *     io.acceld.mesos.containment.Fence#denied()}), so that after a restart {@code /state} shows
 *     the same denial; empty in records of older agents, which did not keep it
 * @param taskDevices a custom executor's tasks' device nodes, by task id, so that after a restart
 *     its fence still follows them (a task's are denied again when it ends); empty for a command
 *     task and in records of older agents, whose executors' fences then only widen
 */
record ContainerRecord(
    String containerId,
    FrameworkInfo framework,
    AgentInfo agent,
    Optional<ExecutorInfo> executor,
    List<TaskInfo> tasks,
    Set<String> reported,
    long pid,
    Instant startTime,
    Path sandbox,
    Optional<ExecutorToken> token,
    Optional<List<DeviceNode>> denied,
    Map<String, List<DeviceNode>> taskDevices) {
  ContainerRecord {
    Objects.requireNonNull(containerId, "containerId");
    Objects.requireNonNull(framework, "framework");
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(executor, "executor");
    tasks = List.copyOf(tasks);
    reported = Set.copyOf(reported);
    Objects.requireNonNull(startTime, "startTime");
    Objects.requireNonNull(sandbox, "sandbox");
    Objects.requireNonNull(token, "token");
    denied = denied.map(List::copyOf);
    taskDevices = Map.copyOf(taskDevices);
  }
}
