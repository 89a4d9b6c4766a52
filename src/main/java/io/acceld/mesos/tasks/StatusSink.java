package io.acceld.mesos.tasks;

import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskStatus;

/**
 * Where the executor side reports every status of every task: the status update manager of the
 * scheduler side.
 */
public interface StatusSink {
  /**
   * Records {@code status} (its {@code uuid} set) in the task's update stream. Returns once the
   * update is checkpointed, so the caller may then tell an executor ACKNOWLEDGED; forwarding to the
   * scheduler is asynchronous and retried until the scheduler acknowledges. A terminal state
   * releases the task's devices in the ledger.
   */
  void update(FrameworkID framework, TaskStatus status);
}
