package io.acceld.mesos.executor;

import io.acceld.mesos.containment.Fence;
import io.acceld.mesos.tasks.StatusSink;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.util.ClientText;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every container needs from the agent: where statuses go, the threads timers and process
 * exits run on, the checkpoint, each container's fence, and how processes are started and watched
 * (a container's {@link ProcessKiller} is made for its tree, from {@link #work}).
 *
 * @param work the containers' named threads: launches, exits, kill escalations, heartbeats
 */
record ContainerServices(
    StatusSink sink,
    Statuses statuses,
    ScheduledExecutorService work,
    ContainerRecords records,
    ProcessStarter starter,
    ProcessWatch watch,
    ExecutorEnvironment environment,
    ContainerFences fences,
    ContainmentCounters counters,
    ContainerSettings settings) {
  private static final Logger log = LoggerFactory.getLogger(ContainerServices.class);

  /**
   * The killer of a container's processes, for the tree and fence it was started or re-attached
   * with.
   */
  ProcessKiller killer(ProcessTree tree, Fence fence) {
    return new ProcessKiller(tree, fence, work);
  }

  /**
   * Hands a status to the sink. A sink that fails (its checkpoint could not be written) is logged
   * and does not stop the container's own bookkeeping: the scheduler then learns the truth by
   * reconciliation.
   */
  void report(FrameworkID framework, TaskStatus status) {
    try {
      sink.update(framework, status);
    } catch (RuntimeException e) {
      log.error(
          "Could not record {} of task {}: {}",
          status.getState(),
          ClientText.quote(status.getTaskId().getValue()),
          e.toString());
    }
  }
}
