package io.acceld.mesos.executor;

import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.executor.Call;
import io.acceld.util.ClientText;
import java.util.Optional;

/**
 * The checks Mesos's agent makes of an executor's call before any lookup ({@code
 * validateExecutorCall}, reference §2.2), with its texts. The HTTP layer answers 400 with them.
 */
final class UpdateValidation {
  static final String PREFIX = "Failed to validate executor::Call: ";

  private UpdateValidation() {}

  /** What is wrong with {@code call}, if anything. */
  static Optional<String> problem(Call call) {
    if (!call.hasExecutorId()) {
      return Optional.of(PREFIX + "Expecting 'executor_id' to be present");
    }
    if (!call.hasFrameworkId()) {
      return Optional.of(PREFIX + "Expecting 'framework_id' to be present");
    }
    if (!call.hasType()) {
      return Optional.of(PREFIX + "Expecting 'type' to be present");
    }
    return switch (call.getType()) {
      case SUBSCRIBE ->
          call.hasSubscribe()
              ? Optional.empty()
              : Optional.of(PREFIX + "Expecting 'subscribe' to be present");
      case UPDATE -> update(call);
      case MESSAGE ->
          call.hasMessage() && call.getMessage().hasData()
              ? Optional.empty()
              : Optional.of(PREFIX + "Expecting 'message' to be present");
      default -> Optional.empty();
    };
  }

  private static Optional<String> update(Call call) {
    if (!call.hasUpdate() || !call.getUpdate().hasStatus()) {
      return Optional.of(PREFIX + "Expecting 'update' to be present");
    }
    return status(call, call.getUpdate().getStatus());
  }

  /** An update's status, also for the {@code unacknowledged_updates} of a SUBSCRIBE. */
  static Optional<String> status(Call call, TaskStatus status) {
    if (!status.hasUuid()) {
      return Optional.of(PREFIX + "Expecting 'uuid' to be present");
    }
    if (status.getUuid().size() != 16) {
      return Optional.of(PREFIX + "Not a valid UUID");
    }
    if (status.hasExecutorId() && !status.getExecutorId().equals(call.getExecutorId())) {
      return Optional.of(
          PREFIX
              + "ExecutorID in Call: "
              + ClientText.quote(call.getExecutorId().getValue())
              + " does not match ExecutorID in TaskStatus: "
              + ClientText.quote(status.getExecutorId().getValue()));
    }
    if (status.getSource() != TaskStatus.Source.SOURCE_EXECUTOR) {
      return Optional.of(
          PREFIX + "Received Call from executor with invalid source, expecting 'SOURCE_EXECUTOR'");
    }
    if (status.getState() == TaskState.TASK_STAGING) {
      return Optional.of(PREFIX + "Received TASK_STAGING from executor which is not allowed");
    }
    return Optional.empty();
  }
}
