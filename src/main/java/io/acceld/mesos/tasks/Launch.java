package io.acceld.mesos.tasks;

import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import java.util.List;
import java.util.Optional;

/**
 * One LAUNCH or LAUNCH_GROUP operation of an ACCEPT, leased and checkpointed.
 *
 * @param framework the framework's info, its {@code id} set
 * @param agent this node, as the executor's SUBSCRIBED event shows it
 * @param executor the custom executor to run the tasks under; empty for command tasks, which run
 *     under the built-in command executor
 * @param group true for LAUNCH_GROUP (delivered to the executor as one LAUNCH_GROUP event)
 */
public record Launch(
    FrameworkInfo framework,
    AgentInfo agent,
    Optional<ExecutorInfo> executor,
    List<LaunchedTask> tasks,
    boolean group) {
  public Launch {
    tasks = List.copyOf(tasks);
  }
}
