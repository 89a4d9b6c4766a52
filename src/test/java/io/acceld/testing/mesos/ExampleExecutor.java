package io.acceld.testing.mesos;

import com.google.protobuf.ByteString;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.Label;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.executor.Event;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A custom Mesos executor, a real program speaking the v1 executor HTTP API as a framework's own
 * executor would: it reads {@code MESOS_AGENT_ENDPOINT}, {@code MESOS_FRAMEWORK_ID} and {@code
 * MESOS_EXECUTOR_ID}, SUBSCRIBEs, and for each LAUNCHed task writes its environment to the file the
 * task's {@code data} names and reports TASK_RUNNING; a task labelled {@code example/mode=hold}
 * then runs until KILLed (TASK_KILLED), any other finishes at once (TASK_FINISHED). On SHUTDOWN it
 * kills its tasks and exits once those updates are acknowledged.
 *
 * <p>{@code EXAMPLE_EXECUTOR_CODEC} ({@code application/json} or {@code application/x-protobuf})
 * picks its codec; {@code EXAMPLE_EXECUTOR_JOURNAL} names a file it appends what happened to
 * (SUBSCRIBED with its pid, each UPDATE and ACKNOWLEDGED with the uuid in hex, SHUTDOWN, EXIT), so
 * a test can see the executor's side.
 */
public final class ExampleExecutor {
  public static final String MODE_LABEL = "example/mode";
  public static final String HOLD = "hold";
  public static final String CODEC_ENV = "EXAMPLE_EXECUTOR_CODEC";
  public static final String JOURNAL_ENV = "EXAMPLE_EXECUTOR_JOURNAL";

  private final MesosExecutorClient client;
  private final FrameworkID framework;
  private final ExecutorID executor;
  private final PrintWriter journal;
  private final Set<TaskID> held = new LinkedHashSet<>();
  private final Set<ByteString> unacknowledged = new LinkedHashSet<>();
  private boolean shuttingDown;

  private ExampleExecutor(
      MesosExecutorClient client, FrameworkID framework, ExecutorID executor, PrintWriter journal) {
    this.client = client;
    this.framework = framework;
    this.executor = executor;
    this.journal = journal;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> env = System.getenv();
    MediaType codec =
        MediaType.ofContentType(env.getOrDefault(CODEC_ENV, MediaType.JSON.value()))
            .orElseThrow(() -> new IllegalArgumentException(CODEC_ENV + " names no codec"));
    Path journalFile = Path.of(required(env, JOURNAL_ENV));
    try (PrintWriter journal =
        new PrintWriter(
            Files.newBufferedWriter(
                journalFile,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND),
            true)) {
      ExampleExecutor example =
          new ExampleExecutor(
              MesosExecutorClient.of(required(env, "MESOS_AGENT_ENDPOINT"), codec),
              MesosExecutorCalls.frameworkId(required(env, "MESOS_FRAMEWORK_ID")),
              MesosExecutorCalls.executorId(required(env, "MESOS_EXECUTOR_ID")),
              journal);
      int status = example.run();
      journal.println("EXIT " + status);
      System.exit(status);
    }
  }

  private static String required(Map<String, String> env, String name) {
    String value = env.get(name);
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("the executor's environment lacks " + name);
    }
    return value;
  }

  /** Serves the subscription until SHUTDOWN (0) or until the agent goes away (1). */
  private int run() throws IOException, InterruptedException {
    try (MesosEventStream<Event> events =
        client.subscribe(MesosExecutorCalls.subscribe(framework, executor))) {
      if (events.status() != 200) {
        journal.println("REFUSED " + events.status() + " " + events.errorBody());
        return 2;
      }
      Optional<Event> next;
      while ((next = events.take()).isPresent()) {
        Event event = next.get();
        switch (event.getType()) {
          case SUBSCRIBED -> journal.println("SUBSCRIBED " + ProcessHandle.current().pid());
          case LAUNCH -> launch(event.getLaunch().getTask());
          case KILL -> kill(event.getKill().getTaskId());
          case ACKNOWLEDGED -> {
            unacknowledged.remove(event.getAcknowledged().getUuid());
            journal.println(
                "ACKNOWLEDGED "
                    + event.getAcknowledged().getTaskId().getValue()
                    + " "
                    + hex(event.getAcknowledged().getUuid()));
          }
          case SHUTDOWN -> {
            journal.println("SHUTDOWN");
            shuttingDown = true;
            for (TaskID task : Set.copyOf(held)) {
              kill(task);
            }
          }
          default -> journal.println("EVENT " + event.getType());
        }
        // Like the v1 executor library, it leaves only once its last updates are acknowledged
        // (the agent destroys it after the grace period if they never are).
        if (shuttingDown && unacknowledged.isEmpty()) {
          return 0;
        }
      }
      journal.println("STREAM ENDED");
      return 1;
    }
  }

  private void launch(TaskInfo task) throws IOException {
    writeEnvironment(Path.of(task.getData().toStringUtf8()));
    update(task.getTaskId(), TaskState.TASK_RUNNING);
    boolean hold =
        task.getLabels().getLabelsList().stream()
            .anyMatch(l -> l.getKey().equals(MODE_LABEL) && l.getValue().equals(HOLD));
    if (hold) {
      held.add(task.getTaskId());
    } else {
      update(task.getTaskId(), TaskState.TASK_FINISHED);
    }
  }

  private void kill(TaskID task) throws IOException {
    if (held.remove(task)) {
      update(task, TaskState.TASK_KILLED);
    }
  }

  private void update(TaskID task, TaskState state) throws IOException {
    TaskStatus status = MesosExecutorCalls.status(executor, task, state);
    unacknowledged.add(status.getUuid());
    MesosResponse answer = client.call(MesosExecutorCalls.update(framework, executor, status));
    journal.println(
        "UPDATE "
            + task.getValue()
            + " "
            + state
            + " "
            + hex(status.getUuid())
            + " "
            + answer.status());
  }

  /** The task's environment (this process's), written whole or not at all. */
  private static void writeEnvironment(Path file) {
    StringBuilder text = new StringBuilder();
    new TreeMap<>(System.getenv())
        .forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    try {
      Path partial = file.resolveSibling(file.getFileName() + ".partial");
      Files.writeString(partial, text, StandardCharsets.UTF_8);
      Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String hex(ByteString bytes) {
    return HexFormat.of().formatHex(bytes.toByteArray());
  }

  /** The label that keeps a task running until it is killed. */
  public static Label holdLabel() {
    return Label.newBuilder().setKey(MODE_LABEL).setValue(HOLD).build();
  }
}
