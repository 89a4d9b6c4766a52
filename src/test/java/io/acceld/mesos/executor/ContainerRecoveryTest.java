package io.acceld.mesos.executor;

import static io.acceld.mesos.executor.MesosFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.ledger.Holder;
import io.acceld.mesos.http.Reply;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.executor.Call;
import io.acceld.proto.mesos.v1.executor.Event;
import io.acceld.testing.CgroupLeftovers;
import io.acceld.testing.Eventually;
import io.acceld.testing.MutableClock;
import io.acceld.testing.ProcessCleanup;
import io.acceld.testing.ProcessTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent killed and started again: the first {@link Containers} is closed without killing
 * anything (as {@code kill -9} of the agent would leave its tasks), a second one opens the same
 * directory and recovers.
 */
class ContainerRecoveryTest {
  /** The secure defaults fence every task: its memory cgroup is here (v1, as on CI). */
  static final Path MEMORY_CGROUPS =
      Path.of("/sys/fs/cgroup/memory").resolve(CgroupLeftovers.PARENT);

  @TempDir Path dir;
  @TempDir Path node;
  final RecordingSink before = new RecordingSink();
  final RecordingSink after = new RecordingSink();
  Containers first;
  Containers second;

  @AfterEach
  void close() {
    for (Containers c : new Containers[] {first, second}) {
      if (c != null) {
        c.close();
      }
    }
    ProcessCleanup.killEverythingStarted();
  }

  Containers open(RecordingSink sink) throws IOException {
    return Containers.open(dir, settings(Duration.ofMinutes(1)), sink, new MutableClock());
  }

  /** A task that runs until its sandbox has a file named {@code release}. */
  TaskStatus launchHeldTask(String id) throws IOException {
    first = open(before);
    first.recover();
    first.launch(
        commandLaunch(
            task(id, shell("while [ ! -e release ]; do sleep 0.02; done; exit 0")), NO_DEVICES));
    return before.await(id, TaskState.TASK_RUNNING);
  }

  @Test
  void aTaskThatSurvivedIsReattachedAndItsExitReported() throws IOException {
    CgroupLeftovers.requireV1Files();
    TaskStatus running = launchHeldTask("t-live");
    String container = running.getContainerStatus().getContainerId().getValue();
    Path limit = MEMORY_CGROUPS.resolve(container).resolve("memory.limit_in_bytes");
    String limitBefore = Files.readString(limit);
    first.close();

    second = open(after);
    assertThat(second.recover()).containsExactly(new Holder.MesosTask("fw-1", "t-live"));
    // its fence was found again, limits untouched
    assertThat(CgroupLeftovers.under()).containsExactly(container);
    assertThat(Files.readString(limit)).isEqualTo(limitBefore);
    Files.writeString(sandboxOf(dir, running).resolve("release"), "");

    TaskStatus finished = after.awaitTerminal("t-live");
    assertThat(CgroupLeftovers.under()).isEmpty();
    assertThat(finished.getState()).isEqualTo(TaskState.TASK_FINISHED);
    assertThat(finished.getMessage()).isEqualTo("Command exited with status 0");
    assertThat(after.statesOf("t-live")).containsExactly(TaskState.TASK_FINISHED);
    assertThat(before.statesOf("t-live"))
        .containsExactly(TaskState.TASK_STARTING, TaskState.TASK_RUNNING);
  }

  /**
   * {@code /state}'s denied and allowed devices of a container come from its checkpoint after a
   * restart: the fence cannot be read back from the cgroup (v2 has only a BPF program), and
   * recomputing it without the task's devices would list its own GPU and companions as denied.
   */
  @Test
  void aReattachedFenceShowsTheDevicesItDeniesAsBefore() throws IOException {
    Path devRoot =
        new io.acceld.simulate.FakeNodeTree(node)
            .charDevice("nvidia0", 195, 0)
            .charDevice("nvidia1", 195, 1)
            .charDevice("nvidiactl", 195, 255)
            .charDevice("nvidia-uvm", 237, 0)
            .devRoot();
    ContainerSettings settings = settings(Duration.ofMinutes(1));
    var c = settings.containment();
    settings =
        settings.withContainment(
            new io.acceld.mesos.containment.ContainmentSettings(
                c.isolation(),
                c.switchUser(),
                c.allowRootTasks(),
                c.cgroupRoot(),
                devRoot,
                c.setpriv(),
                c.parent()));
    first = Containers.open(dir, settings, before, new MutableClock());
    first.recover();
    TaskStatus running = launchHoldingGpu0("t-gpu");
    List<String> deniedBefore = first.fences().get(0).deniedDevices();
    assertThat(deniedBefore).as("only the GPU it was not given").containsExactly("195:1");
    List<String> allowedBefore = first.fences().get(0).allowedDevices();
    assertThat(allowedBefore)
        .as("its GPU and the shared nodes")
        .containsExactlyInAnyOrder("195:0", "195:255", "237:0");
    first.close();

    second = Containers.open(dir, settings, after, new MutableClock());
    second.recover();

    assertThat(second.fences())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.deniedDevices()).isEqualTo(deniedBefore);
              assertThat(f.allowedDevices()).isEqualTo(allowedBefore);
            });
    Files.writeString(sandboxOf(dir, running).resolve("release"), "");
    assertThat(after.awaitTerminal("t-gpu").getState()).isEqualTo(TaskState.TASK_FINISHED);
  }

  @Test
  void aReattachedTaskCanStillBeKilledWithItsTree() throws IOException {
    TaskStatus running = launchHeldTask("t-kill");
    long pid = running.getContainerStatus().getExecutorPid();
    first.close();

    second = open(after);
    second.recover();
    second.kill(FRAMEWORK, CommandTasksTest.taskId("t-kill"), Optional.empty());

    assertThat(after.awaitTerminal("t-kill").getState()).isEqualTo(TaskState.TASK_KILLED);
    assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
  }

  @Test
  void aTaskThatEndedWhileTheAgentWasDownIsReportedFromItsExitStatus() throws IOException {
    TaskStatus running = launchHeldTask("t-done");
    long pid = running.getContainerStatus().getExecutorPid();
    first.close();
    Files.writeString(sandboxOf(dir, running).resolve("release"), "");
    Eventually.await(
        "the task to exit", () -> ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty());

    assertThat(CgroupLeftovers.under())
        .containsExactly(running.getContainerStatus().getContainerId().getValue());

    second = open(after);
    assertThat(second.recover()).containsExactly(new Holder.MesosTask("fw-1", "t-done"));
    // it ended meanwhile: its cgroup is removed, nothing is left under the agent's parent
    assertThat(CgroupLeftovers.under()).isEmpty();

    TaskStatus finished = after.awaitTerminal("t-done");
    assertThat(finished.getState()).isEqualTo(TaskState.TASK_FINISHED);
    assertThat(finished.getMessage()).startsWith("Command exited with status 0");
  }

  @Test
  void aTaskKilledWhileTheAgentWasDownFailsAsGoneAfterTheRestart() throws IOException {
    TaskStatus running = launchHeldTask("t-vanished");
    long pid = running.getContainerStatus().getExecutorPid();
    first.close();
    // SIGKILL to the whole group, as one signal: the wrapper has no chance to record a status. A
    // kill of the descendants listed at one instant missed a command the wrapper was forking at
    // that instant, which then ran on, re-parented to init, long after the test. The group exists
    // once the wrapper's setsid has run, which RUNNING does not wait for (on a busy machine the
    // signal found no group).
    Eventually.await("the wrapper to lead its process group", () -> !groupMembers(pid).isEmpty());
    assertThat(Signals.load().signalGroup(pid, Signals.SIGKILL)).isTrue();
    Eventually.await("the task's process group to die", () -> groupMembers(pid).isEmpty());

    second = open(after);
    second.recover();

    TaskStatus failed = after.awaitTerminal("t-vanished");
    assertThat(failed.getState()).isEqualTo(TaskState.TASK_FAILED);
    assertThat(failed.getReason()).isEqualTo(TaskStatus.Reason.REASON_AGENT_RESTARTED);
    assertThat(failed.getMessage()).contains("gone after the agent restarted");
    Eventually.await("the record to be removed", () -> recordCount() == 0);
  }

  @Test
  void aReusedPidIsNotMistakenForTheTask() {
    long mine = ProcessHandle.current().pid();
    Instant myStart = ProcessHandle.current().info().startInstant().orElseThrow();

    assertThat(ProcessTree.attach(mine, myStart.minusSeconds(5), Signals.load())).isEmpty();
    assertThat(ProcessTree.attach(mine, myStart, Signals.load())).isPresent();
  }

  @Test
  void aSurvivingExecutorIsReattachedAndMayResubscribe() throws IOException {
    first = open(before);
    first.recover();
    first.launch(
        executorLaunch(
            executor("exec-1", shell("exec sleep 300")),
            NO_DEVICES,
            executorTask("t-1"),
            executorTask("t-2")));
    Eventually.await("the executor's record", () -> recordCount() == 1);
    subscribe(first, Call.Subscribe.newBuilder());
    // t-1 was reported running (and acknowledged); t-2 was delivered but never started.
    first.handle(
        CustomExecutorsTest.update(
            CustomExecutorsTest.executorStatus("t-1", TaskState.TASK_RUNNING).build()));
    first.close();

    second = open(after);
    assertThat(second.recover())
        .containsExactlyInAnyOrder(
            new Holder.MesosTask("fw-1", "t-1"), new Holder.MesosTask("fw-1", "t-2"));
    RecordingEventStream stream = subscribe(second, Call.Subscribe.newBuilder());

    assertThat(stream.types()).containsExactly(Event.Type.SUBSCRIBED);
    assertThat(after.statusesOf("t-1")).isEmpty();
    TaskStatus lost = after.awaitTerminal("t-2");
    assertThat(lost.getState()).isEqualTo(TaskState.TASK_LOST);
    assertThat(lost.getReason()).isEqualTo(TaskStatus.Reason.REASON_AGENT_RESTARTED);
    assertThat(second.executorsOf(FRAMEWORK)).hasSize(1);
  }

  /**
   * The limits {@code /state} shows for a re-attached executor are those in force: a task that
   * raised the memory hard limit and then ended brought it down again to the executor and its
   * remaining task, and so it still is after a restart.
   */
  @Test
  void aReattachedExecutorShowsTheLimitsInForceAsBefore() throws IOException {
    first = open(before);
    first.recover();
    io.acceld.proto.mesos.v1.ExecutorInfo info =
        executor("exec-1", shell("exec sleep 300")).toBuilder()
            .addResources(CustomExecutorsTest.scalar("mem", 32))
            .build();
    first.launch(
        executorLaunch(info, NO_DEVICES, CustomExecutorsTest.sized(executorTask("t-1"), 0.5, 64)));
    Eventually.await("the executor's record", () -> recordCount() == 1);
    subscribe(first, Call.Subscribe.newBuilder());
    first.launch(
        executorLaunch(info, NO_DEVICES, CustomExecutorsTest.sized(executorTask("t-2"), 1, 128)));
    first.handle(
        CustomExecutorsTest.update(
            CustomExecutorsTest.executorStatus("t-2", TaskState.TASK_FINISHED).build()));
    io.acceld.mesos.containment.Limits shownBefore = first.fences().get(0).limits();
    assertThat(shownBefore.memoryBytes()).isEqualTo((32L + 64) << 20);
    assertThat(shownBefore.cpus()).isEqualTo(0.5);
    first.close();

    second = open(after);
    second.recover();

    assertThat(second.fences())
        .singleElement()
        .satisfies(f -> assertThat(f.limits()).isEqualTo(shownBefore));
  }

  /**
   * A restarted agent's executor fence still follows its tasks' devices: the checkpoint keeps each
   * task's nodes, so the GPU of a task launched into the executor before the restart is allowed
   * after it, and denied again once that task ended, the first task's GPU staying allowed. On v1
   * the re-attached fence writes devices.allow/deny into the cgroup it found again.
   */
  @Test
  void aReattachedExecutorsDeviceFenceStillFollowsItsTasks() throws Exception {
    CgroupLeftovers.requireV1Files(); // its probe joins the v1 devices cgroup
    Path devRoot =
        new io.acceld.simulate.FakeNodeTree(node)
            .charDevice("nvidia0", 195, 0)
            .charDevice("nvidia1", 195, 1)
            .charDevice("nvidiactl", 195, 255)
            .devRoot();
    ContainerSettings settings =
        CustomExecutorsTest.withDevRoot(settings(Duration.ofMinutes(1)), devRoot);
    runTwoGpuTasksInOneExecutor(settings);
    assertThat(first.fences().get(0).deniedDevices()).isEmpty();
    first.close();

    second = Containers.open(dir, settings, after, new MutableClock());
    second.recover();
    Path record = onlyRecord();
    Path devices =
        CustomExecutorsTest.cgroup("devices", record.getFileName().toString().replace(".json", ""));
    assertThat(second.fences())
        .singleElement()
        .satisfies(f -> assertThat(f.deniedDevices()).isEmpty());
    assertThat(CustomExecutorsTest.openInside(devices, devRoot.resolve("nvidia1")))
        .contains(CustomExecutorsTest.ENXIO);
    subscribe(second, Call.Subscribe.newBuilder());

    second.handle(
        CustomExecutorsTest.update(
            CustomExecutorsTest.executorStatus("t-2", TaskState.TASK_FINISHED).build()));

    assertThat(CustomExecutorsTest.openInside(devices, devRoot.resolve("nvidia1")))
        .contains(CustomExecutorsTest.EPERM);
    assertThat(CustomExecutorsTest.openInside(devices, devRoot.resolve("nvidia0")))
        .contains(CustomExecutorsTest.ENXIO);
    assertThat(CustomExecutorsTest.deniedIn(record)).containsExactly("195:1");
    assertThat(second.fences())
        .singleElement()
        .satisfies(f -> assertThat(f.deniedDevices()).containsExactly("195:1"));
  }

  /**
   * A record of an older agent keeps no denial: it still loads and its task is re-attached, the
   * fence taken for denying every accelerator node (nothing is known to be the task's), as before
   * records kept it.
   */
  @Test
  void anOlderRecordWithoutTheDenialStillLoads() throws IOException {
    Path devRoot =
        new io.acceld.simulate.FakeNodeTree(node)
            .charDevice("nvidia0", 195, 0)
            .charDevice("nvidia1", 195, 1)
            .devRoot();
    ContainerSettings settings =
        CustomExecutorsTest.withDevRoot(settings(Duration.ofMinutes(1)), devRoot);
    first = Containers.open(dir, settings, before, new MutableClock());
    first.recover();
    TaskStatus running = launchHoldingGpu0("t-old");
    first.close();
    Path record = onlyRecord();
    var json =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            new com.fasterxml.jackson.databind.ObjectMapper().readTree(record.toFile());
    assertThat(json.has("denied_devices")).isTrue();
    json.remove("denied_devices"); // as an older agent wrote it
    Files.write(record, new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsBytes(json));

    second = Containers.open(dir, settings, after, new MutableClock());

    assertThat(second.recover()).containsExactly(new Holder.MesosTask("fw-1", "t-old"));
    assertThat(second.fences())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.deniedDevices()).containsExactlyInAnyOrder("195:0", "195:1");
              assertThat(f.allowedDevices()).isEmpty();
            });
    Files.writeString(sandboxOf(dir, running).resolve("release"), "");
    assertThat(after.awaitTerminal("t-old").getState()).isEqualTo(TaskState.TASK_FINISHED);
  }

  /**
   * A record of an older agent keeps no task's devices: whose GPU is whose is unknown after the
   * restart, so an ended task's GPU stays allowed rather than denying one a remaining task may be
   * using. The fence still widens for a task launched after the restart.
   */
  @Test
  void anOlderRecordWithoutTaskDevicesNeverNarrowsTheFence() throws Exception {
    CgroupLeftovers.requireV1Files(); // its probe joins the v1 devices cgroup
    Path devRoot =
        new io.acceld.simulate.FakeNodeTree(node)
            .charDevice("nvidia0", 195, 0)
            .charDevice("nvidia1", 195, 1)
            .charDevice("nvidia2", 195, 2)
            .charDevice("nvidiactl", 195, 255)
            .devRoot();
    ContainerSettings settings =
        CustomExecutorsTest.withDevRoot(settings(Duration.ofMinutes(1)), devRoot);
    io.acceld.proto.mesos.v1.ExecutorInfo info = runTwoGpuTasksInOneExecutor(settings);
    first.close();
    Path record = onlyRecord();
    var json =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            new com.fasterxml.jackson.databind.ObjectMapper().readTree(record.toFile());
    assertThat(json.has("task_devices")).isTrue();
    json.remove("task_devices"); // as an older agent wrote it
    Files.write(record, new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsBytes(json));

    second = Containers.open(dir, settings, after, new MutableClock());
    second.recover();
    Path devices =
        CustomExecutorsTest.cgroup("devices", record.getFileName().toString().replace(".json", ""));
    subscribe(second, Call.Subscribe.newBuilder());
    second.handle(
        CustomExecutorsTest.update(
            CustomExecutorsTest.executorStatus("t-2", TaskState.TASK_FINISHED).build()));

    assertThat(CustomExecutorsTest.openInside(devices, devRoot.resolve("nvidia1")))
        .contains(CustomExecutorsTest.ENXIO);
    assertThat(CustomExecutorsTest.openInside(devices, devRoot.resolve("nvidia2")))
        .contains(CustomExecutorsTest.EPERM);

    second.launch(
        executorLaunch(info, CustomExecutorsTest.gpu("GPU-c", "nvidia2"), executorTask("t-3")));

    assertThat(CustomExecutorsTest.openInside(devices, devRoot.resolve("nvidia2")))
        .contains(CustomExecutorsTest.ENXIO);
    assertThat(CustomExecutorsTest.deniedIn(record)).isEmpty();
  }

  private static RecordingEventStream subscribe(
      Containers containers, Call.Subscribe.Builder subscribe) {
    Reply reply =
        containers.subscribe(
            CustomExecutorsTest.call(Call.Type.SUBSCRIBE).setSubscribe(subscribe).build());
    RecordingEventStream stream = new RecordingEventStream();
    ((Reply.Stream) reply).opened().accept(stream);
    return stream;
  }

  @Test
  void anExecutorGoneDuringTheDowntimeFailsItsTasks() throws IOException {
    first = open(before);
    first.recover();
    first.launch(
        executorLaunch(
            executor("exec-1", shell("while [ ! -e stop ]; do sleep 0.02; done")),
            NO_DEVICES,
            executorTask("t-1")));
    Eventually.await("the executor's record", () -> recordCount() == 1);
    first.close();
    try (var sandboxes = Files.list(dir.resolve(Containers.SANDBOXES))) {
      Files.writeString(sandboxes.findFirst().orElseThrow().resolve("stop"), "");
    }
    long pid = recordedPid();
    Eventually.await(
        "the executor to exit",
        () -> ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty());

    second = open(after);
    second.recover();

    TaskStatus failed = after.awaitTerminal("t-1");
    assertThat(failed.getState()).isEqualTo(TaskState.TASK_FAILED);
    assertThat(failed.getReason()).isEqualTo(TaskStatus.Reason.REASON_AGENT_RESTARTED);
  }

  @Test
  void anUnreadableRecordIsSetAsideAndTheRestRecovered() throws IOException {
    launchHeldTask("t-ok");
    first.close();
    Files.writeString(
        dir.resolve(Containers.RECORDS).resolve("00000000-0000-0000-0000-000000000000.json"),
        "{not json");

    second = open(after);
    assertThat(second.recover()).containsExactly(new Holder.MesosTask("fw-1", "t-ok"));
    assertThat(
            dir.resolve(Containers.RECORDS)
                .resolve("00000000-0000-0000-0000-000000000000.json.unusable"))
        .exists();
  }

  /**
   * The first agent's custom executor (exec-1) running t-1 with GPU-a (nvidia0), then t-2 launched
   * into it with GPU-b (nvidia1), both reported running; its ExecutorInfo, for later launches.
   */
  private io.acceld.proto.mesos.v1.ExecutorInfo runTwoGpuTasksInOneExecutor(
      ContainerSettings settings) throws IOException {
    first = Containers.open(dir, settings, before, new MutableClock());
    first.recover();
    io.acceld.proto.mesos.v1.ExecutorInfo info = executor("exec-1", shell("exec sleep 300"));
    first.launch(
        executorLaunch(info, CustomExecutorsTest.gpu("GPU-a", "nvidia0"), executorTask("t-1")));
    Eventually.await("the executor's record", () -> recordCount() == 1);
    subscribe(first, Call.Subscribe.newBuilder());
    first.launch(
        executorLaunch(info, CustomExecutorsTest.gpu("GPU-b", "nvidia1"), executorTask("t-2")));
    for (String t : List.of("t-1", "t-2")) {
      first.handle(
          CustomExecutorsTest.update(
              CustomExecutorsTest.executorStatus(t, TaskState.TASK_RUNNING).build()));
    }
    return info;
  }

  /** The one container record in the checkpoint directory. */
  private Path onlyRecord() throws IOException {
    try (var files = Files.list(dir.resolve(Containers.RECORDS))) {
      return files.findFirst().orElseThrow();
    }
  }

  private long recordedPid() throws IOException {
    return new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(onlyRecord().toFile())
        .get("pid")
        .asLong();
  }

  /** The live processes of group {@code pgid}: a task's whole tree, re-parented ones included. */
  private static List<ProcessTable.Entry> groupMembers(long pgid) {
    return ProcessTable.read().group(pgid);
  }

  private long recordCount() {
    try (var files = Files.list(dir.resolve(Containers.RECORDS))) {
      return files.filter(p -> p.getFileName().toString().endsWith(".json")).count();
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * Launches command task {@code id} on the first agent, given {@code /dev/nvidia0}, running until
   * a file {@code release} appears in its sandbox; returns its TASK_RUNNING.
   */
  private TaskStatus launchHoldingGpu0(String id) throws IOException {
    io.acceld.allocation.RuntimeSpec gpu0 =
        new io.acceld.allocation.RuntimeSpec(
            java.util.Map.of(),
            List.of(
                new io.acceld.allocation.RuntimeSpec.DeviceNode(
                    "/dev/nvidia0", "/dev/nvidia0", "rw")),
            List.of(),
            List.of());
    first.launch(
        commandLaunch(
            task(id, shell("while [ ! -e release ]; do sleep 0.02; done; exit 0")), gpu0));
    return before.await(id, TaskState.TASK_RUNNING);
  }
}
