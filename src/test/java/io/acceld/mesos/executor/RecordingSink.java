package io.acceld.mesos.executor;

import com.google.protobuf.ByteString;
import io.acceld.mesos.tasks.StatusSink;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.testing.Eventually;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link StatusSink} standing in for the scheduler side's task book: it records every status and
 * message in order.
 */
final class RecordingSink implements StatusSink {
  record Update(FrameworkID framework, TaskStatus status) {}

  record Message(FrameworkID framework, ExecutorID executor, ByteString data) {}

  final List<Update> updates = new CopyOnWriteArrayList<>();
  final List<Message> messages = new CopyOnWriteArrayList<>();

  @Override
  public void update(FrameworkID framework, TaskStatus status) {
    updates.add(new Update(framework, status));
  }

  @Override
  public void messageFromExecutor(FrameworkID framework, ExecutorID executor, ByteString data) {
    messages.add(new Message(framework, executor, data));
  }

  List<TaskStatus> statusesOf(String taskId) {
    return updates.stream()
        .map(Update::status)
        .filter(s -> s.getTaskId().getValue().equals(taskId))
        .toList();
  }

  List<TaskState> statesOf(String taskId) {
    return statusesOf(taskId).stream().map(TaskStatus::getState).toList();
  }

  /** The first status of {@code taskId} in {@code state}, once it arrives. */
  TaskStatus await(String taskId, TaskState state) {
    Eventually.await(
        taskId + " reaching " + state + " (so far " + statesOf(taskId) + ")",
        () -> statesOf(taskId).contains(state));
    return statusesOf(taskId).stream().filter(s -> s.getState() == state).findFirst().orElseThrow();
  }

  /** The terminal status of {@code taskId}, once it arrives. */
  TaskStatus awaitTerminal(String taskId) {
    Eventually.await(
        taskId + " ending (so far " + statesOf(taskId) + ")",
        () -> statesOf(taskId).stream().anyMatch(Statuses::isTerminal));
    return statusesOf(taskId).stream()
        .filter(s -> Statuses.isTerminal(s.getState()))
        .findFirst()
        .orElseThrow();
  }
}
