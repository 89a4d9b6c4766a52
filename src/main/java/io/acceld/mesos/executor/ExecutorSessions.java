package io.acceld.mesos.executor;

import com.google.protobuf.ByteString;
import io.acceld.mesos.http.ExecutorEndpoint;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.tasks.StatusSink;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.executor.Call;
import io.acceld.util.ClientText;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor API's calls, in the order of Mesos's agent (reference §2.1): validation (400), the
 * framework and the executor (400 each when unknown), the subscription (403), then the call. An
 * UPDATE is recorded by the {@link StatusSink} (which returns once it is checkpointed) before the
 * executor is told ACKNOWLEDGED, so an acknowledged update is never lost.
 */
final class ExecutorSessions implements ExecutorEndpoint {
  private static final Logger log = LoggerFactory.getLogger(ExecutorSessions.class);

  /** Where the sessions find executors: the agent's container table. */
  interface Directory {
    boolean recovering();

    boolean knowsFramework(String frameworkId);

    Optional<ExecutorProcess> executor(ExecutorKey key);
  }

  private record Ack(TaskID task, ByteString uuid) {}

  private final Directory directory;
  private final StatusSink sink;

  ExecutorSessions(Directory directory, StatusSink sink) {
    this.directory = directory;
    this.sink = sink;
  }

  @Override
  public boolean recovering() {
    return directory.recovering();
  }

  @Override
  public Reply subscribe(Call call) {
    Optional<String> problem = UpdateValidation.problem(call);
    if (problem.isPresent()) {
      return Reply.failure(400, problem.get());
    }
    if (call.getType() != Call.Type.SUBSCRIBE) {
      return Reply.failure(400, UpdateValidation.PREFIX + "Expecting a SUBSCRIBE call");
    }
    Lookup found = lookup(call);
    if (found.failure != null) {
      return found.failure;
    }
    ExecutorProcess executor = found.executor;
    Optional<String> refused = executor.refusesSubscription();
    if (refused.isPresent()) {
      return Reply.failure(403, refused.get());
    }
    // Replay the updates the executor has not seen acknowledged: duplicates are harmless to the
    // status update stream, a lost one is not.
    List<Ack> acks = new ArrayList<>();
    for (Call.Update update : call.getSubscribe().getUnacknowledgedUpdatesList()) {
      TaskStatus status = update.getStatus();
      Optional<String> invalid = UpdateValidation.status(call, status);
      if (invalid.isPresent()) {
        log.warn(
            "Ignoring an unacknowledged update of executor {}: {}",
            ClientText.quote(call.getExecutorId().getValue()),
            invalid.get());
        continue;
      }
      TaskStatus complete = complete(call, status);
      try {
        sink.update(call.getFrameworkId(), complete);
      } catch (RuntimeException e) {
        return Reply.failure(500, "Failed to record a status update: " + e.getMessage());
      }
      executor.updated(complete);
      acks.add(new Ack(complete.getTaskId(), complete.getUuid()));
    }
    Set<String> unacknowledgedTasks = new HashSet<>();
    call.getSubscribe()
        .getUnacknowledgedTasksList()
        .forEach(t -> unacknowledgedTasks.add(t.getTaskId().getValue()));
    return new Reply.Stream(
        Optional.empty(),
        stream -> {
          executor.subscribed(unacknowledgedTasks, stream);
          acks.forEach(a -> executor.acknowledge(a.task(), a.uuid()));
        });
  }

  @Override
  public Reply handle(Call call) {
    Optional<String> problem = UpdateValidation.problem(call);
    if (problem.isPresent()) {
      return Reply.failure(400, problem.get());
    }
    if (call.getType() == Call.Type.HEARTBEAT) {
      return Reply.accepted();
    }
    if (call.getType() == Call.Type.SUBSCRIBE) {
      return subscribe(call);
    }
    Lookup found = lookup(call);
    if (found.failure != null) {
      return found.failure;
    }
    ExecutorProcess executor = found.executor;
    if (call.getType() != Call.Type.UPDATE && call.getType() != Call.Type.MESSAGE) {
      return Reply.failure(501, "Unsupported executor call type " + call.getType());
    }
    if (!executor.acceptsCalls()) {
      return Reply.failure(403, "Executor is not subscribed");
    }
    if (call.getType() == Call.Type.MESSAGE) {
      sink.messageFromExecutor(
          call.getFrameworkId(), call.getExecutorId(), call.getMessage().getData());
      return Reply.accepted();
    }
    TaskStatus status = complete(call, call.getUpdate().getStatus());
    try {
      sink.update(call.getFrameworkId(), status);
    } catch (RuntimeException e) {
      // Not recorded: no ACKNOWLEDGED, so the executor retries it.
      return Reply.failure(500, "Failed to record the status update: " + e.getMessage());
    }
    executor.updated(status);
    executor.acknowledge(status.getTaskId(), status.getUuid());
    return Reply.accepted();
  }

  /** The status with the executor's ID filled in when the executor left it out. */
  private static TaskStatus complete(Call call, TaskStatus status) {
    return status.hasExecutorId()
        ? status
        : status.toBuilder().setExecutorId(call.getExecutorId()).build();
  }

  private record Lookup(ExecutorProcess executor, Reply failure) {}

  private Lookup lookup(Call call) {
    if (!directory.knowsFramework(call.getFrameworkId().getValue())) {
      return new Lookup(null, Reply.failure(400, "Framework cannot be found"));
    }
    Optional<ExecutorProcess> executor =
        directory.executor(ExecutorKey.of(call.getFrameworkId(), call.getExecutorId()));
    return executor
        .map(e -> new Lookup(e, null))
        .orElseGet(() -> new Lookup(null, Reply.failure(400, "Executor cannot be found")));
  }
}
