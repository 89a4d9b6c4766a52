package io.acceld.testing.mesos;

import com.google.protobuf.ByteString;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.executor.Call;
import java.nio.ByteBuffer;
import java.util.UUID;

/** The executor calls an executor makes, built as the v1 executor library builds them. */
public final class MesosExecutorCalls {
  private MesosExecutorCalls() {}

  private static Call.Builder call(FrameworkID framework, ExecutorID executor, Call.Type type) {
    return Call.newBuilder().setFrameworkId(framework).setExecutorId(executor).setType(type);
  }

  public static Call subscribe(FrameworkID framework, ExecutorID executor) {
    return call(framework, executor, Call.Type.SUBSCRIBE)
        .setSubscribe(Call.Subscribe.getDefaultInstance())
        .build();
  }

  public static Call update(FrameworkID framework, ExecutorID executor, TaskStatus status) {
    return call(framework, executor, Call.Type.UPDATE)
        .setUpdate(Call.Update.newBuilder().setStatus(status))
        .build();
  }

  public static Call message(FrameworkID framework, ExecutorID executor, ByteString data) {
    return call(framework, executor, Call.Type.MESSAGE)
        .setMessage(Call.Message.newBuilder().setData(data))
        .build();
  }

  public static Call heartbeat(FrameworkID framework, ExecutorID executor) {
    return call(framework, executor, Call.Type.HEARTBEAT).build();
  }

  /** A call of {@code type} without the message that type needs. */
  public static Call bare(FrameworkID framework, ExecutorID executor, Call.Type type) {
    return call(framework, executor, type).build();
  }

  /** A valid executor update: SOURCE_EXECUTOR, a fresh random 16-byte uuid. */
  public static TaskStatus status(ExecutorID executor, TaskID task, TaskState state) {
    return TaskStatus.newBuilder()
        .setTaskId(task)
        .setState(state)
        .setSource(TaskStatus.Source.SOURCE_EXECUTOR)
        .setExecutorId(executor)
        .setUuid(randomUuid())
        .build();
  }

  public static ByteString randomUuid() {
    UUID uuid = UUID.randomUUID();
    return ByteString.copyFrom(
        ByteBuffer.allocate(16)
            .putLong(uuid.getMostSignificantBits())
            .putLong(uuid.getLeastSignificantBits())
            .array());
  }

  public static ExecutorID executorId(String value) {
    return ExecutorID.newBuilder().setValue(value).build();
  }

  public static FrameworkID frameworkId(String value) {
    return FrameworkID.newBuilder().setValue(value).build();
  }
}
