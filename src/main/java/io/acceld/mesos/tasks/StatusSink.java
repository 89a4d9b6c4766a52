package io.acceld.mesos.tasks;

import com.google.protobuf.ByteString;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskStatus;

/**
 * Where the executor side reports what goes up to schedulers: every status of every task (to the
 * status update manager of the scheduler side), and executors' messages.
 */
public interface StatusSink {
  /**
   * Records {@code status} (its {@code uuid} set) in the task's update stream. Returns once the
   * update is checkpointed, so the caller may then tell an executor ACKNOWLEDGED; forwarding to the
   * scheduler is asynchronous and retried until the scheduler acknowledges. A terminal state
   * releases the task's devices in the ledger.
   */
  void update(FrameworkID framework, TaskStatus status);

  /** An executor's MESSAGE call, delivered best effort to its scheduler as a MESSAGE event. */
  void messageFromExecutor(FrameworkID framework, ExecutorID executor, ByteString data);
}
