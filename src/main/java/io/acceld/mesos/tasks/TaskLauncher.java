package io.acceld.mesos.tasks;

import com.google.protobuf.ByteString;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.KillPolicy;
import io.acceld.proto.mesos.v1.TaskID;
import java.util.List;
import java.util.Optional;

/**
 * What the scheduler side asks of the executor side (this node's containers). Every method returns
 * at once: the work happens on the executor side's own threads, and every change of a task's state
 * comes back through the {@link StatusSink}.
 */
public interface TaskLauncher {
  /** Runs the tasks of {@code launch}: TASK_STARTING, TASK_RUNNING, then a terminal status. */
  void launch(Launch launch);

  /** Kills a task, honouring {@code policy}'s grace period (SIGTERM, then SIGKILL). */
  void kill(FrameworkID framework, TaskID task, Optional<KillPolicy> policy);

  /** Sends SHUTDOWN to an executor and destroys it after its grace period. */
  void shutdownExecutor(FrameworkID framework, ExecutorID executor);

  /** Shuts down every executor and task of a framework (TEARDOWN, failover timeout). */
  void shutdownFramework(FrameworkID framework);

  /** Delivers a scheduler's MESSAGE; false when no such executor is subscribed. */
  boolean message(FrameworkID framework, ExecutorID executor, ByteString data);

  /** The framework's executors on this node, for {@code Offer.executor_ids}. */
  List<ExecutorID> executorsOf(FrameworkID framework);
}
