package io.acceld.mesos.tasks;

import com.google.protobuf.ByteString;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.KillPolicy;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.util.NamedThreads;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A {@link TaskLauncher} that behaves as the executor side does towards the scheduler side, without
 * processes: every call returns at once, and on its own thread each launched task reports
 * TASK_STARTING then TASK_RUNNING through the {@link StatusSink}, with a uuid and SOURCE_EXECUTOR;
 * a kill or a framework shutdown reports TASK_KILLED, {@link #finish} reports TASK_FINISHED.
 */
public final class RecordingLauncher implements TaskLauncher, AutoCloseable {
  private final StatusSink sink;
  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(new NamedThreads("test-launcher"));
  public final List<Launch> launches = new CopyOnWriteArrayList<>();
  public final List<FrameworkID> shutdowns = new CopyOnWriteArrayList<>();
  public final List<ByteString> messages = new CopyOnWriteArrayList<>();

  /** Running tasks: framework/task → executor. */
  private final Map<String, ExecutorID> running = new ConcurrentHashMap<>();

  public RecordingLauncher(StatusSink sink) {
    this.sink = sink;
  }

  @Override
  public void launch(Launch launch) {
    launches.add(launch);
    FrameworkID fw = launch.framework().getId();
    executor.execute(
        () -> {
          for (LaunchedTask t : launch.tasks()) {
            ExecutorID ex =
                launch
                    .executor()
                    .map(e -> e.getExecutorId())
                    .or(
                        () ->
                            t.task().hasExecutor()
                                ? Optional.of(t.task().getExecutor().getExecutorId())
                                : Optional.empty())
                    .orElse(
                        ExecutorID.newBuilder().setValue(t.task().getTaskId().getValue()).build());
            running.put(key(fw, t.task().getTaskId()), ex);
            report(fw, t.task().getTaskId(), ex, TaskState.TASK_STARTING);
            report(fw, t.task().getTaskId(), ex, TaskState.TASK_RUNNING);
          }
        });
  }

  /** The task's process exits 0. */
  public void finish(FrameworkID fw, TaskID task) {
    executor.execute(() -> end(fw, task, TaskState.TASK_FINISHED));
  }

  @Override
  public void kill(FrameworkID framework, TaskID task, Optional<KillPolicy> policy) {
    executor.execute(() -> end(framework, task, TaskState.TASK_KILLED));
  }

  @Override
  public void shutdownExecutor(FrameworkID framework, ExecutorID executorId) {
    executor.execute(
        () ->
            running.forEach(
                (k, ex) -> {
                  if (k.startsWith(framework.getValue() + "/") && ex.equals(executorId)) {
                    end(framework, taskOf(k), TaskState.TASK_KILLED);
                  }
                }));
  }

  @Override
  public void shutdownFramework(FrameworkID framework) {
    shutdowns.add(framework);
    executor.execute(
        () -> {
          for (String k : new ArrayList<>(running.keySet())) {
            if (k.startsWith(framework.getValue() + "/")) {
              end(framework, taskOf(k), TaskState.TASK_KILLED);
            }
          }
        });
  }

  @Override
  public boolean message(FrameworkID framework, ExecutorID executorId, ByteString data) {
    messages.add(data);
    return running.containsValue(executorId);
  }

  @Override
  public List<ExecutorID> executorsOf(FrameworkID framework) {
    List<ExecutorID> out = new ArrayList<>();
    running.forEach(
        (k, ex) -> {
          if (k.startsWith(framework.getValue() + "/") && !out.contains(ex)) {
            out.add(ex);
          }
        });
    return out;
  }

  private void end(FrameworkID fw, TaskID task, TaskState state) {
    ExecutorID ex = running.remove(key(fw, task));
    if (ex != null) {
      report(fw, task, ex, state);
    }
  }

  private void report(FrameworkID fw, TaskID task, ExecutorID ex, TaskState state) {
    UUID u = UUID.randomUUID();
    ByteBuffer b =
        ByteBuffer.allocate(16)
            .putLong(u.getMostSignificantBits())
            .putLong(u.getLeastSignificantBits());
    sink.update(
        fw,
        TaskStatus.newBuilder()
            .setTaskId(task)
            .setState(state)
            .setExecutorId(ex)
            .setSource(TaskStatus.Source.SOURCE_EXECUTOR)
            .setUuid(ByteString.copyFrom(b.array()))
            .build());
  }

  private static String key(FrameworkID fw, TaskID task) {
    return fw.getValue() + "/" + task.getValue();
  }

  private static TaskID taskOf(String key) {
    return TaskID.newBuilder().setValue(key.substring(key.indexOf('/') + 1)).build();
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
