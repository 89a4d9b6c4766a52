package io.acceld.mesos.executor;

import static io.acceld.mesos.executor.MesosFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.testing.Eventually;
import io.acceld.testing.MutableClock;
import io.acceld.testing.ProcessCleanup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Command tasks as real child processes under the built-in command executor. */
class CommandTasksTest {
  @TempDir Path dir;
  final RecordingSink sink = new RecordingSink();
  Containers containers;

  @BeforeEach
  void open() throws IOException {
    containers = Containers.open(dir, settings(Duration.ofMinutes(1)), sink, new MutableClock());
    containers.recover();
  }

  @AfterEach
  void close() {
    containers.close();
    ProcessCleanup.killEverythingStarted();
  }

  @Test
  void aTaskSeesItsGpusItsEnvironmentAndTheMesosVariables() throws IOException {
    containers.launch(
        commandLaunch(
            task("t-env", withEnv(exec("env", "env"), "NVIDIA_VISIBLE_DEVICES", "all")),
            gpus("GPU-aaaa", "GPU-bbbb")));

    TaskStatus finished = sink.await("t-env", TaskState.TASK_FINISHED);
    Path sandbox = sandboxOf(dir, finished);
    Map<String, String> env = parseEnv(sandbox.resolve("stdout"));

    // The task's own "all" must not widen its GPUs: the device variables come last.
    assertThat(env)
        .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-aaaa,GPU-bbbb")
        .containsEntry("CUDA_VISIBLE_DEVICES", "GPU-aaaa,GPU-bbbb")
        .containsEntry("MESOS_TASK_ID", "t-env")
        .containsEntry("MESOS_EXECUTOR_ID", "t-env")
        .containsEntry("MESOS_FRAMEWORK_ID", "fw-1")
        .containsEntry("MESOS_SLAVE_ID", "agent-1")
        .containsEntry("MESOS_AGENT_ENDPOINT", "127.0.0.1:5051")
        .containsEntry("MESOS_SLAVE_PID", "slave(1)@127.0.0.1:5051")
        .containsEntry("MESOS_SANDBOX", sandbox.toString())
        .containsEntry("MESOS_DIRECTORY", sandbox.toString());
  }

  @Test
  void aTaskWithoutGpusIsToldItHasNone() throws IOException {
    containers.launch(
        commandLaunch(task("t-none", withEnv(exec("env", "env"), "FOO", "bar baz")), NO_DEVICES));

    TaskStatus finished = sink.await("t-none", TaskState.TASK_FINISHED);
    Map<String, String> env = parseEnv(sandboxOf(dir, finished).resolve("stdout"));

    assertThat(env)
        .containsEntry("NVIDIA_VISIBLE_DEVICES", "void")
        .containsEntry("CUDA_VISIBLE_DEVICES", "")
        .containsEntry("FOO", "bar baz");
  }

  @Test
  void statusesGoStartingRunningFinishedFromTheExecutor() {
    containers.launch(commandLaunch(task("t-ok", shell("exit 0")), NO_DEVICES));

    TaskStatus finished = sink.await("t-ok", TaskState.TASK_FINISHED);

    assertThat(sink.statesOf("t-ok"))
        .containsExactly(TaskState.TASK_STARTING, TaskState.TASK_RUNNING, TaskState.TASK_FINISHED);
    assertThat(finished.getMessage()).isEqualTo("Command exited with status 0");
    for (TaskStatus s : sink.statusesOf("t-ok")) {
      assertThat(s.getUuid().size()).isEqualTo(16);
      assertThat(s.getSource()).isEqualTo(TaskStatus.Source.SOURCE_EXECUTOR);
      assertThat(s.getExecutorId().getValue()).isEqualTo("t-ok");
      assertThat(s.getAgentId().getValue()).isEqualTo("agent-1");
      assertThat(s.getTimestamp()).isPositive();
    }
    assertThat(sink.updates.get(0).framework()).isEqualTo(FRAMEWORK);
  }

  @Test
  void aNonZeroExitFailsTheTaskWithItsStatus() {
    containers.launch(commandLaunch(task("t-3", shell("echo oops >&2; exit 3")), NO_DEVICES));

    TaskStatus failed = sink.awaitTerminal("t-3");

    assertThat(failed.getState()).isEqualTo(TaskState.TASK_FAILED);
    assertThat(failed.getMessage()).isEqualTo("Command exited with status 3");
  }

  @Test
  void aMissingProgramFailsTheTask() {
    containers.launch(commandLaunch(task("t-404", exec("/nonexistent/program", "p")), NO_DEVICES));

    TaskStatus failed = sink.awaitTerminal("t-404");

    assertThat(failed.getState()).isEqualTo(TaskState.TASK_FAILED);
    assertThat(failed.getMessage()).isEqualTo("Command exited with status 127");
  }

  @Test
  void argumentsAreNeverInterpolatedByAShell() throws IOException {
    containers.launch(
        commandLaunch(
            task(
                "t-argv",
                exec(
                    "printf",
                    "printf",
                    "[%s]\\n",
                    "$(touch pwned1)",
                    "`touch pwned2`",
                    "; touch pwned3",
                    "$0")),
            NO_DEVICES));

    TaskStatus finished = sink.await("t-argv", TaskState.TASK_FINISHED);
    Path sandbox = sandboxOf(dir, finished);

    assertThat(Files.readAllLines(sandbox.resolve("stdout")))
        .containsExactly("[$(touch pwned1)]", "[`touch pwned2`]", "[; touch pwned3]", "[$0]");
    try (var files = Files.list(sandbox)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("pwned"));
    }
  }

  @Test
  void aShellCommandIsTheClientsOwnShell() throws IOException {
    containers.launch(commandLaunch(task("t-sh", shell("echo $((40 + 2)) > answer")), NO_DEVICES));

    TaskStatus finished = sink.await("t-sh", TaskState.TASK_FINISHED);

    assertThat(Files.readString(sandboxOf(dir, finished).resolve("answer"))).isEqualTo("42\n");
  }

  @Test
  void theSandboxIsTheOwnersOnly() throws IOException {
    containers.launch(commandLaunch(task("t-perm", shell("echo hi")), NO_DEVICES));

    Path sandbox = sandboxOf(dir, sink.await("t-perm", TaskState.TASK_FINISHED));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(sandbox)))
        .isEqualTo("rwx------");
    assertThat(
            PosixFilePermissions.toString(Files.getPosixFilePermissions(sandbox.resolve("stdout"))))
        .isEqualTo("rw-------");
    assertThat(Files.readString(sandbox.resolve("stdout"))).isEqualTo("hi\n");
  }

  @Test
  void aKillSendsSigtermFirstSoATaskThatHonoursItEndsBeforeTheGracePeriod() throws IOException {
    containers.launch(
        commandLaunch(task("t-term", shell("echo up > up; exec sleep 300")), NO_DEVICES));
    Path sandbox = sandboxOf(dir, sink.await("t-term", TaskState.TASK_RUNNING));
    Eventually.await("the task to start", () -> Files.exists(sandbox.resolve("up")));

    // A grace period far beyond the test's patience: only SIGTERM can end it in time.
    containers.kill(FRAMEWORK, taskId("t-term"), Optional.of(grace(Duration.ofMinutes(5))));

    TaskStatus killed = sink.awaitTerminal("t-term");
    assertThat(killed.getState()).isEqualTo(TaskState.TASK_KILLED);
    assertThat(killed.getMessage()).isEqualTo("Command terminated with signal Terminated");
  }

  @Test
  void aTaskThatIgnoresSigtermIsKilledAfterItsGracePeriod() throws IOException {
    TaskStatus running;
    containers.launch(
        commandLaunch(
            task(
                "t-stubborn",
                shell(
                    "trap 'echo term >> term.log' TERM; echo ready > ready; while :; do sleep 0.05; done")),
            NO_DEVICES));
    running = sink.await("t-stubborn", TaskState.TASK_RUNNING);
    Path sandbox = sandboxOf(dir, running);
    Eventually.await("the trap to be set", () -> Files.exists(sandbox.resolve("ready")));
    long pid = running.getContainerStatus().getExecutorPid();

    // The trap runs once the shell is scheduled after the signal: on a loaded machine that may be
    // later than 300 ms, so the grace the test gives is scaled like its waits.
    containers.kill(
        FRAMEWORK,
        taskId("t-stubborn"),
        Optional.of(grace(io.acceld.testing.Waits.scaled(Duration.ofMillis(300)))));

    TaskStatus killed = sink.awaitTerminal("t-stubborn");
    assertThat(killed.getState()).isEqualTo(TaskState.TASK_KILLED);
    assertThat(Files.readString(sandbox.resolve("term.log"))).startsWith("term");
    assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
  }

  @Test
  void aKilledTasksWholeTreeDies() throws IOException {
    containers.launch(
        commandLaunch(
            task("t-tree", shell("sh -c 'sleep 300 & echo $! > grandchild.pid; wait' & wait")),
            NO_DEVICES));
    TaskStatus running = sink.await("t-tree", TaskState.TASK_RUNNING);
    long grandchild = awaitPid(sandboxOf(dir, running).resolve("grandchild.pid"));

    containers.kill(FRAMEWORK, taskId("t-tree"), Optional.of(grace(Duration.ofSeconds(1))));

    assertThat(sink.awaitTerminal("t-tree").getState()).isEqualTo(TaskState.TASK_KILLED);
    Eventually.await(
        "the grandchild " + grandchild + " to die",
        () -> ProcessHandle.of(grandchild).filter(ProcessHandle::isAlive).isEmpty());
  }

  @Test
  void whatATaskLeavesBehindDiesWhenItEnds() throws IOException {
    containers.launch(
        commandLaunch(
            task("t-orphan", shell("sleep 300 & echo $! > child.pid; exit 0")), NO_DEVICES));

    TaskStatus finished = sink.await("t-orphan", TaskState.TASK_FINISHED);
    long child = awaitPid(sandboxOf(dir, finished).resolve("child.pid"));

    Eventually.await(
        "the task's left-over child " + child + " to die",
        () -> ProcessHandle.of(child).filter(ProcessHandle::isAlive).isEmpty());
  }

  @Test
  void aTaskKilledAsItStartsIsKilled() {
    containers.launch(commandLaunch(task("t-early", exec("sleep", "sleep", "300")), NO_DEVICES));
    sink.await("t-early", TaskState.TASK_RUNNING);

    // At once, perhaps before the wrapper has started sleep: the kill must not be lost. (A SIGTERM
    // that lands between the wrapper's fork and its exec is caught by the wrapper's copy and lost;
    // the SIGKILL after the grace period still ends the task.)
    containers.kill(FRAMEWORK, taskId("t-early"), Optional.of(grace(Duration.ofSeconds(1))));

    assertThat(sink.awaitTerminal("t-early").getState()).isEqualTo(TaskState.TASK_KILLED);
  }

  @Test
  void shuttingDownAFrameworkKillsItsCommandTasks() {
    containers.launch(commandLaunch(task("t-a", exec("sleep", "sleep", "300")), NO_DEVICES));
    containers.launch(commandLaunch(task("t-b", exec("sleep", "sleep", "300")), NO_DEVICES));
    sink.await("t-a", TaskState.TASK_RUNNING);
    sink.await("t-b", TaskState.TASK_RUNNING);

    containers.shutdownFramework(FRAMEWORK);

    assertThat(sink.awaitTerminal("t-a").getState()).isEqualTo(TaskState.TASK_KILLED);
    assertThat(sink.awaitTerminal("t-b").getState()).isEqualTo(TaskState.TASK_KILLED);
    assertThat(containers.executorsOf(FRAMEWORK)).isEmpty();
  }

  @Test
  void aTaskWithoutACommandFailsToLaunch() {
    containers.launch(
        commandLaunch(
            task("t-empty", io.acceld.proto.mesos.v1.CommandInfo.getDefaultInstance()),
            NO_DEVICES));

    TaskStatus failed = sink.awaitTerminal("t-empty");

    assertThat(failed.getState()).isEqualTo(TaskState.TASK_FAILED);
    assertThat(failed.getReason()).isEqualTo(TaskStatus.Reason.REASON_CONTAINER_LAUNCH_FAILED);
    assertThat(failed.getMessage()).contains("no 'value'");
  }

  @Test
  void aRunningTaskIsCheckpointedOwnerOnlyWithItsProcessIdentity() throws IOException {
    containers.launch(commandLaunch(task("t-rec", exec("sleep", "sleep", "300")), NO_DEVICES));
    TaskStatus running = sink.await("t-rec", TaskState.TASK_RUNNING);

    // Written before TASK_RUNNING was reported.
    List<Path> files = records();
    assertThat(files).hasSize(1);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.get(0))))
        .isEqualTo("rw-------");
    var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(files.get(0).toFile());
    long pid = running.getContainerStatus().getExecutorPid();
    assertThat(json.get("pid").asLong()).isEqualTo(pid);
    assertThat(java.time.Instant.parse(json.get("start_time").asText()))
        .isEqualTo(ProcessHandle.of(pid).orElseThrow().info().startInstant().orElseThrow());
  }

  @Test
  void aFinishedTasksRecordIsRemoved() throws IOException {
    containers.launch(commandLaunch(task("t-gone", shell("true")), NO_DEVICES));
    sink.await("t-gone", TaskState.TASK_FINISHED);

    Eventually.await("the record to be removed", () -> records().isEmpty());
  }

  private List<Path> records() {
    try (var files = Files.list(dir.resolve(Containers.RECORDS))) {
      return files.toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static io.acceld.proto.mesos.v1.TaskID taskId(String id) {
    return io.acceld.proto.mesos.v1.TaskID.newBuilder().setValue(id).build();
  }

  static long awaitPid(Path file) throws IOException {
    Eventually.await(file + " to be written", () -> readPid(file) > 0);
    return readPid(file);
  }

  private static long readPid(Path file) {
    try {
      return Long.parseLong(Files.readString(file).trim());
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }
}
