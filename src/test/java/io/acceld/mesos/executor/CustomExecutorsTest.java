package io.acceld.mesos.executor;

import static io.acceld.mesos.executor.MesosFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.tasks.Launch;
import io.acceld.mesos.tasks.LaunchedTask;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.executor.Call;
import io.acceld.proto.mesos.v1.executor.Event;
import io.acceld.testing.CgroupLeftovers;
import io.acceld.testing.Eventually;
import io.acceld.testing.MutableClock;
import io.acceld.testing.ProcessCleanup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Custom executors as real processes; the executor API called directly with real Call protos, as
 * the HTTP layer would after decoding them.
 */
class CustomExecutorsTest {
  static final ExecutorID EXECUTOR_ID = ExecutorID.newBuilder().setValue("exec-1").build();

  @TempDir Path dir;
  final RecordingSink sink = new RecordingSink();
  Containers containers;

  Containers open(ContainerSettings settings) throws IOException {
    containers = Containers.open(dir, settings, sink, new MutableClock());
    containers.recover();
    return containers;
  }

  Containers open() throws IOException {
    return open(settings(Duration.ofMinutes(1)).withExecutorShutdownGrace(Duration.ofMillis(200)));
  }

  @AfterEach
  void close() {
    if (containers != null) {
      containers.close();
    }
    ProcessCleanup.killEverythingStarted();
  }

  /** An executor that stays up until destroyed, as one waiting for its HTTP subscription. */
  static ExecutorInfo waitingExecutor() {
    return executor("exec-1", shell("echo up > up; exec sleep 300"));
  }

  @Test
  void anExecutorGetsTheMesosExecutorEnvironment() throws IOException {
    open();
    ExecutorInfo info =
        executor(
            "exec-1",
            withEnv(
                shell("env > env.tmp && mv env.tmp executor.env; exec sleep 300"), "MY_VAR", "42"));
    containers.launch(executorLaunch(info, gpus("GPU-1111"), executorTask("t-1")));

    Path envFile = awaitSandboxFile("executor.env");
    Map<String, String> env = parseEnv(envFile);
    String sandbox = envFile.getParent().toString();

    assertThat(env)
        .containsEntry("MESOS_FRAMEWORK_ID", "fw-1")
        .containsEntry("MESOS_EXECUTOR_ID", "exec-1")
        .containsEntry("MESOS_DIRECTORY", sandbox)
        .containsEntry("MESOS_SANDBOX", sandbox)
        .containsEntry("MESOS_AGENT_ENDPOINT", "127.0.0.1:5051")
        .containsEntry("MESOS_SLAVE_PID", "slave(1)@127.0.0.1:5051")
        .containsEntry("MESOS_SLAVE_ID", "agent-1")
        .containsEntry("MESOS_CHECKPOINT", "1")
        .containsEntry("MESOS_HTTP_COMMAND_EXECUTOR", "0")
        .containsEntry("MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD", "200ms")
        .containsEntry("MESOS_RECOVERY_TIMEOUT", "15mins")
        .containsEntry("MESOS_SUBSCRIPTION_BACKOFF_MAX", "2secs")
        .containsEntry("MY_VAR", "42")
        .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-1111")
        .containsEntry("CUDA_VISIBLE_DEVICES", "GPU-1111");
    assertThat(containers.executorsOf(FRAMEWORK)).containsExactly(EXECUTOR_ID);
  }

  @Test
  void anExecutorThatNeverSubscribesIsDestroyedAndItsTasksFail() throws IOException {
    open(settings(Duration.ofMillis(300)));
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    long pid = awaitExecutorPid();

    TaskStatus failed = sink.awaitTerminal("t-1");

    assertThat(failed.getState()).isEqualTo(TaskState.TASK_FAILED);
    assertThat(failed.getReason())
        .isEqualTo(TaskStatus.Reason.REASON_EXECUTOR_REGISTRATION_TIMEOUT);
    assertThat(failed.getMessage()).isEqualTo("Executor did not register within 300ms");
    assertThat(failed.getSource()).isEqualTo(TaskStatus.Source.SOURCE_AGENT);
    assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
    Eventually.await(
        "the executor to be forgotten", () -> containers.executorsOf(FRAMEWORK).isEmpty());
  }

  @Test
  void aSubscribedExecutorGetsSubscribedThenItsQueuedTasks() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    awaitSandboxFile("up");

    RecordingEventStream stream = subscribe();

    assertThat(stream.types()).containsExactly(Event.Type.SUBSCRIBED, Event.Type.LAUNCH);
    Event.Subscribed subscribed = stream.events.get(0).getSubscribed();
    assertThat(subscribed.getExecutorInfo().getExecutorId()).isEqualTo(EXECUTOR_ID);
    assertThat(subscribed.getFrameworkInfo().getId()).isEqualTo(FRAMEWORK);
    assertThat(subscribed.getAgentInfo().getId().getValue()).isEqualTo("agent-1");
    assertThat(subscribed.hasContainerId()).isTrue();
    assertThat(stream.events.get(1).getLaunch().getTask().getTaskId().getValue()).isEqualTo("t-1");

    // Later tasks go straight to the subscribed executor.
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-2")));
    Eventually.await("the second LAUNCH", () -> stream.types().size() == 3);
    assertThat(stream.events.get(2).getLaunch().getTask().getTaskId().getValue()).isEqualTo("t-2");
  }

  @Test
  void eachLaunchNamesItsTasksDevicesWhateverTheClientLabelledIt() {
    io.acceld.proto.mesos.v1.TaskInfo task =
        executorTask("t-9").toBuilder()
            .setLabels(
                io.acceld.proto.mesos.v1.Labels.newBuilder()
                    .addLabels(
                        io.acceld.proto.mesos.v1.Label.newBuilder().setKey("team").setValue("ml"))
                    .addLabels(
                        io.acceld.proto.mesos.v1.Label.newBuilder()
                            .setKey("acceld.io/devices")
                            .setValue("GPU-forged")))
            .build();

    io.acceld.proto.mesos.v1.TaskInfo delivered =
        Containers.namingItsDevices(
            new io.acceld.mesos.tasks.LaunchedTask(task, List.of("GPU-a", "GPU-b"), NO_DEVICES));

    assertThat(delivered.getLabels().getLabelsList())
        .extracting(l -> l.getKey() + "=" + l.getValue())
        .containsExactly("team=ml", "acceld.io/devices=GPU-a,GPU-b");
  }

  @Test
  void aTaskGroupIsDeliveredAsOneLaunchGroup() throws IOException {
    open();
    Launch group =
        new Launch(
            FRAMEWORK_INFO,
            AGENT,
            Optional.of(waitingExecutor()),
            List.of(
                new LaunchedTask(executorTask("g-1"), List.of(), NO_DEVICES),
                new LaunchedTask(executorTask("g-2"), List.of(), NO_DEVICES)),
            true);
    containers.launch(group);

    RecordingEventStream stream = subscribe();

    assertThat(stream.types()).containsExactly(Event.Type.SUBSCRIBED, Event.Type.LAUNCH_GROUP);
    assertThat(stream.events.get(1).getLaunchGroup().getTaskGroup().getTasksList())
        .extracting(t -> t.getTaskId().getValue())
        .containsExactly("g-1", "g-2");
  }

  @Test
  void tearingDownAFrameworkDestroysAnExecutorThatIsNotConnected() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    long pid = awaitExecutorPid();

    containers.shutdownFramework(FRAMEWORK);

    TaskStatus killed = sink.awaitTerminal("t-1");
    assertThat(killed.getState()).isEqualTo(TaskState.TASK_KILLED);
    Eventually.await(
        "the executor to die",
        () -> ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty());
    assertThat(containers.message(FRAMEWORK, EXECUTOR_ID, ByteString.EMPTY)).isFalse();
  }

  @Test
  void anUpdateIsRecordedThenAcknowledged() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    RecordingEventStream stream = subscribe();
    TaskStatus running = executorStatus("t-1", TaskState.TASK_RUNNING).build();

    Reply reply = containers.handle(update(running));

    assertThat(reply).isEqualTo(Reply.accepted());
    assertThat(sink.statusesOf("t-1")).containsExactly(running);
    Event ack = stream.await(Event.Type.ACKNOWLEDGED);
    assertThat(ack.getAcknowledged().getTaskId().getValue()).isEqualTo("t-1");
    assertThat(ack.getAcknowledged().getUuid()).isEqualTo(running.getUuid());
  }

  @Test
  void messagesGoBothWays() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    RecordingEventStream stream = subscribe();

    Reply reply =
        containers.handle(
            call(Call.Type.MESSAGE)
                .setMessage(Call.Message.newBuilder().setData(ByteString.copyFromUtf8("up")))
                .build());
    boolean delivered = containers.message(FRAMEWORK, EXECUTOR_ID, ByteString.copyFromUtf8("down"));

    assertThat(reply).isEqualTo(Reply.accepted());
    assertThat(sink.messages).hasSize(1);
    assertThat(sink.messages.get(0).data().toStringUtf8()).isEqualTo("up");
    assertThat(sink.messages.get(0).executor()).isEqualTo(EXECUTOR_ID);
    assertThat(delivered).isTrue();
    assertThat(stream.await(Event.Type.MESSAGE).getMessage().getData().toStringUtf8())
        .isEqualTo("down");
  }

  @Test
  void aKillOfADeliveredTaskIsTheExecutorsToCarryOut() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    RecordingEventStream stream = subscribe();

    containers.kill(
        FRAMEWORK,
        TaskID.newBuilder().setValue("t-1").build(),
        Optional.of(grace(Duration.ofSeconds(7))));

    Event kill = stream.await(Event.Type.KILL);
    assertThat(kill.getKill().getTaskId().getValue()).isEqualTo("t-1");
    assertThat(kill.getKill().getKillPolicy().getGracePeriod().getNanoseconds())
        .isEqualTo(7_000_000_000L);
  }

  @Test
  void aKillOfAQueuedTaskKillsItHere() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));

    containers.kill(FRAMEWORK, TaskID.newBuilder().setValue("t-1").build(), Optional.empty());

    TaskStatus killed = sink.awaitTerminal("t-1");
    assertThat(killed.getState()).isEqualTo(TaskState.TASK_KILLED);
    assertThat(killed.getReason()).isEqualTo(TaskStatus.Reason.REASON_TASK_KILLED_DURING_LAUNCH);
  }

  @Test
  void aSecondSubscriptionClosesTheFirstStream() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    RecordingEventStream first = subscribe();

    RecordingEventStream second =
        subscribe(Call.Subscribe.newBuilder().addUnacknowledgedTasks(executorTask("t-1")));

    assertThat(first.isOpen()).isFalse();
    assertThat(second.isOpen()).isTrue();
    assertThat(second.types()).containsExactly(Event.Type.SUBSCRIBED);
    assertThat(sink.statusesOf("t-1")).isEmpty(); // listed as unacknowledged: not lost
  }

  @Test
  void aDeliveredTaskTheExecutorForgotIsLostOnResubscription() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    subscribe();

    subscribe(Call.Subscribe.newBuilder());

    TaskStatus lost = sink.awaitTerminal("t-1");
    assertThat(lost.getState()).isEqualTo(TaskState.TASK_LOST);
    assertThat(lost.getReason()).isEqualTo(TaskStatus.Reason.REASON_AGENT_RESTARTED);
  }

  @Test
  void unacknowledgedUpdatesAreReplayedAndAcknowledged() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    TaskStatus running = executorStatus("t-1", TaskState.TASK_RUNNING).build();

    RecordingEventStream stream =
        subscribe(
            Call.Subscribe.newBuilder()
                .addUnacknowledgedUpdates(Call.Update.newBuilder().setStatus(running)));

    assertThat(sink.statusesOf("t-1")).containsExactly(running);
    assertThat(stream.await(Event.Type.ACKNOWLEDGED).getAcknowledged().getUuid())
        .isEqualTo(running.getUuid());
  }

  @Test
  void heartbeatsFollowAtTheInterval() throws IOException {
    open(settings(Duration.ofMinutes(1)).withExecutorHeartbeat(Duration.ofMillis(100)));
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    RecordingEventStream stream = subscribe();

    assertThat(stream.types()).doesNotContain(Event.Type.HEARTBEAT);
    stream.await(Event.Type.HEARTBEAT);
  }

  @Test
  void shutdownSendsShutdownThenDestroysAfterTheGracePeriod() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    RecordingEventStream stream = subscribe();
    long pid = awaitExecutorPid();

    containers.shutdownExecutor(FRAMEWORK, EXECUTOR_ID);

    stream.await(Event.Type.SHUTDOWN);
    TaskStatus killed = sink.awaitTerminal("t-1");
    assertThat(killed.getState()).isEqualTo(TaskState.TASK_KILLED);
    assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
    Eventually.await("the stream to end", () -> !stream.isOpen());
  }

  @Test
  void anExecutorShuttingDownMayStillReportItsTasksKilled() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    RecordingEventStream stream = subscribe();
    containers.shutdownExecutor(FRAMEWORK, EXECUTOR_ID);
    stream.await(Event.Type.SHUTDOWN);
    TaskStatus killed = executorStatus("t-1", TaskState.TASK_KILLED).build();

    Reply reply = containers.handle(update(killed));

    assertThat(reply).isEqualTo(Reply.accepted());
    assertThat(sink.statusesOf("t-1")).contains(killed);
    assertThat(stream.await(Event.Type.ACKNOWLEDGED).getAcknowledged().getUuid())
        .isEqualTo(killed.getUuid());
  }

  @Test
  void anExecutorThatExitsFailsItsUnfinishedTasks() throws IOException {
    open();
    containers.launch(
        executorLaunch(
            executor("exec-1", shell("while [ ! -e stop ]; do sleep 0.02; done; exit 0")),
            NO_DEVICES,
            executorTask("t-1"),
            executorTask("t-2")));
    subscribe();
    containers.handle(update(executorStatus("t-1", TaskState.TASK_FINISHED).build()));
    Files.writeString(awaitSandbox().resolve("stop"), "");

    TaskStatus failed = sink.awaitTerminal("t-2");

    assertThat(failed.getState()).isEqualTo(TaskState.TASK_FAILED);
    assertThat(failed.getReason()).isEqualTo(TaskStatus.Reason.REASON_EXECUTOR_TERMINATED);
    assertThat(sink.statesOf("t-1")).containsExactly(TaskState.TASK_FINISHED);
  }

  @Test
  void callsAreCheckedInMesossOrder() throws IOException {
    open();
    assertThat(containers.recovering()).isFalse();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    TaskStatus valid = executorStatus("t-1", TaskState.TASK_RUNNING).build();

    assertThat(
            containers.handle(
                update(valid).toBuilder()
                    .setFrameworkId(FrameworkID.newBuilder().setValue("nope"))
                    .build()))
        .isEqualTo(Reply.failure(400, "Framework cannot be found"));
    assertThat(
            containers.handle(
                update(valid.toBuilder().clearExecutorId().build()).toBuilder()
                    .setExecutorId(ExecutorID.newBuilder().setValue("nope"))
                    .build()))
        .isEqualTo(Reply.failure(400, "Executor cannot be found"));
    assertThat(containers.handle(update(valid)))
        .isEqualTo(Reply.failure(403, "Executor is not subscribed"));
    assertThat(containers.handle(call(Call.Type.HEARTBEAT).build())).isEqualTo(Reply.accepted());
  }

  @Test
  void invalidUpdatesAreRefusedWith400() throws IOException {
    open();
    containers.launch(executorLaunch(waitingExecutor(), NO_DEVICES, executorTask("t-1")));
    subscribe();
    TaskStatus.Builder valid = executorStatus("t-1", TaskState.TASK_RUNNING);

    assertBadRequest(
        update(valid.clone().setExecutorId(ExecutorID.newBuilder().setValue("other")).build()),
        "does not match ExecutorID");
    assertBadRequest(
        update(valid.clone().setUuid(ByteString.copyFromUtf8("dummy_uuid")).build()),
        "Not a valid UUID");
    assertBadRequest(update(valid.clone().clearUuid().build()), "'uuid'");
    assertBadRequest(
        update(valid.clone().setState(TaskState.TASK_STAGING).build()), "TASK_STAGING");
    assertBadRequest(
        update(valid.clone().setSource(TaskStatus.Source.SOURCE_MASTER).build()),
        "SOURCE_EXECUTOR");
    assertBadRequest(call(Call.Type.UPDATE).build(), "'update'");
    assertBadRequest(call(Call.Type.MESSAGE).build(), "'message'");
    assertThat(containers.subscribe(call(Call.Type.SUBSCRIBE).build()))
        .isInstanceOf(Reply.Failure.class)
        .extracting(r -> ((Reply.Failure) r).status())
        .isEqualTo(400);
    assertThat(sink.statusesOf("t-1")).isEmpty();
  }

  /**
   * A task launched into a running executor raises its container's limits before the executor hears
   * of it, and one that ended lowers them again, as Mesos's containerizer updates a container on
   * each launch and task end: the cpu shares and both memory limits follow (the executor's small
   * shell uses far less than its own 32 MiB, so the kernel takes the lower hard limit), and none
   * goes below the executor's own resources.
   */
  @Test
  void aContainersLimitsFollowTheTasksLaunchedIntoItsExecutor() throws IOException {
    CgroupLeftovers.requireV1Files();
    open();
    ExecutorInfo info =
        waitingExecutor().toBuilder()
            .addResources(scalar("cpus", 0.1))
            .addResources(scalar("mem", 32))
            .build();
    containers.launch(executorLaunch(info, NO_DEVICES, sized(executorTask("t-1"), 0.5, 64)));
    RecordingEventStream stream = subscribe();
    String container = awaitRecord().getFileName().toString().replace(".json", "");
    Path memory = cgroup("memory", container);
    Path cpu = cgroup("cpu", container);
    assertThat(read(memory.resolve("memory.limit_in_bytes"))).isEqualTo((32L + 64) << 20);
    assertThat(read(cpu.resolve("cpu.shares"))).isEqualTo(614); // 0.6 cpus

    containers.launch(executorLaunch(info, NO_DEVICES, sized(executorTask("t-2"), 1, 128)));

    Eventually.await("the second LAUNCH", () -> stream.types().size() == 3);
    assertThat(read(memory.resolve("memory.limit_in_bytes"))).isEqualTo((32L + 64 + 128) << 20);
    assertThat(read(memory.resolve("memory.soft_limit_in_bytes")))
        .isEqualTo((32L + 64 + 128) << 20);
    assertThat(read(cpu.resolve("cpu.shares"))).isEqualTo(1638); // 1.6 cpus

    containers.handle(update(executorStatus("t-2", TaskState.TASK_FINISHED).build()));
    containers.handle(update(executorStatus("t-1", TaskState.TASK_FINISHED).build()));

    assertThat(read(memory.resolve("memory.soft_limit_in_bytes"))).isEqualTo(32L << 20);
    assertThat(read(memory.resolve("memory.limit_in_bytes")))
        .as("the hard limit comes down to the executor's own")
        .isEqualTo(32L << 20);
    assertThat(read(cpu.resolve("cpu.shares"))).isEqualTo(102); // the executor's own 0.1 cpus
    // and /state says what is in force
    assertThat(containers.fences())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.limits().memoryBytes()).isEqualTo(32L << 20);
              assertThat(f.limits().cpus()).isEqualTo(0.1);
            });
  }

  /**
   * A task launched into a running executor with a GPU of its own can open it from inside the
   * executor's cgroup (the fence was made for the first launch's GPU only), and once that task
   * ended its GPU is denied again while the first task's stays allowed, as Mesos's gpu/nvidia
   * isolator does. The checkpoint and /state follow each step. The nodes are mknod-made with no
   * driver: ENXIO means the fence let the open through, EPERM that it denied it.
   */
  @Test
  void aTaskLaunchedIntoARunningExecutorOpensItsOwnGpuUntilItEnds() throws Exception {
    CgroupLeftovers.requireV1Files();
    Path devRoot =
        new io.acceld.simulate.FakeNodeTree(dir.resolve("node"))
            .charDevice("nvidia0", 195, 0)
            .charDevice("nvidia1", 195, 1)
            .charDevice("nvidiactl", 195, 255)
            .devRoot();
    open(withDevRoot(settings(Duration.ofMinutes(1)), devRoot));
    ExecutorInfo info = waitingExecutor();
    containers.launch(executorLaunch(info, gpu("GPU-a", "nvidia0"), executorTask("t-1")));
    RecordingEventStream stream = subscribe();
    Path record = awaitRecord();
    Path devices = cgroup("devices", record.getFileName().toString().replace(".json", ""));
    Path a = devRoot.resolve("nvidia0");
    Path b = devRoot.resolve("nvidia1");
    assertThat(openInside(devices, a)).contains(ENXIO);
    assertThat(openInside(devices, b)).contains(EPERM);

    containers.launch(executorLaunch(info, gpu("GPU-b", "nvidia1"), executorTask("t-2")));

    Eventually.await("the second LAUNCH", () -> stream.types().size() == 3);
    assertThat(openInside(devices, b)).contains(ENXIO);
    assertThat(openInside(devices, a)).contains(ENXIO);
    assertThat(deniedIn(record)).isEmpty();
    assertThat(containers.fences())
        .singleElement()
        .satisfies(f -> assertThat(f.deniedDevices()).isEmpty());

    containers.handle(update(executorStatus("t-2", TaskState.TASK_FINISHED).build()));

    assertThat(openInside(devices, b)).contains(EPERM);
    assertThat(openInside(devices, a)).contains(ENXIO);
    assertThat(openInside(devices, devRoot.resolve("nvidiactl"))).contains(ENXIO);
    assertThat(deniedIn(record)).containsExactly("195:1");
    assertThat(containers.fences())
        .singleElement()
        .satisfies(f -> assertThat(f.deniedDevices()).containsExactly("195:1"));
  }

  static final String ENXIO = "No such device or address";
  static final String EPERM = "Operation not permitted";

  static ContainerSettings withDevRoot(ContainerSettings settings, Path devRoot) {
    var c = settings.containment();
    return settings.withContainment(
        new io.acceld.mesos.containment.ContainmentSettings(
            c.isolation(),
            c.switchUser(),
            c.allowRootTasks(),
            c.cgroupRoot(),
            devRoot,
            c.setpriv(),
            c.parent()));
  }

  /** One NVIDIA GPU whose node the task sees as {@code /dev/<node>}. */
  static io.acceld.allocation.RuntimeSpec gpu(String uuid, String node) {
    return new io.acceld.allocation.RuntimeSpec(
        Map.of("NVIDIA_VISIBLE_DEVICES", uuid),
        List.of(
            new io.acceld.allocation.RuntimeSpec.DeviceNode("/dev/" + node, "/dev/" + node, "rw")),
        List.of(),
        List.of());
  }

  /**
   * open(2) of {@code node} by a shell that first moved itself into the container's devices cgroup:
   * "opened", or the shell's error.
   */
  static String openInside(Path devicesCgroup, Path node) throws Exception {
    Process p =
        new ProcessBuilder(
                "/bin/sh",
                "-c",
                "echo $$ > \"$1\"/cgroup.procs && exec 3< \"$2\" && echo opened",
                "probe",
                devicesCgroup.toString(),
                node.toString())
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    return new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** The checkpoint's denied devices, as major:minor. */
  static List<String> deniedIn(Path record) throws IOException {
    var root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(record.toFile());
    List<String> numbers = new java.util.ArrayList<>();
    root.path("denied_devices")
        .forEach(n -> numbers.add(n.get("major").asInt() + ":" + n.get("minor").asInt()));
    return numbers;
  }

  static io.acceld.proto.mesos.v1.Resource scalar(String name, double value) {
    return io.acceld.proto.mesos.v1.Resource.newBuilder()
        .setName(name)
        .setType(io.acceld.proto.mesos.v1.Value.Type.SCALAR)
        .setScalar(io.acceld.proto.mesos.v1.Value.Scalar.newBuilder().setValue(value))
        .build();
  }

  static io.acceld.proto.mesos.v1.TaskInfo sized(
      io.acceld.proto.mesos.v1.TaskInfo task, double cpus, double mem) {
    return task.toBuilder()
        .addResources(scalar("cpus", cpus))
        .addResources(scalar("mem", mem))
        .build();
  }

  /** The container's directory in a cgroup v1 hierarchy, under this test JVM's parent. */
  static Path cgroup(String controller, String container) {
    return Path.of("/sys/fs/cgroup", controller, CgroupLeftovers.PARENT, container);
  }

  static long read(Path file) {
    try {
      return Long.parseLong(Files.readString(file).strip());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void theEndpointIsRecoveringUntilRecovered() throws IOException {
    Containers fresh =
        Containers.open(dir, settings(Duration.ofMinutes(1)), sink, new MutableClock());
    try {
      assertThat(fresh.recovering()).isTrue();
      fresh.recover();
      assertThat(fresh.recovering()).isFalse();
    } finally {
      fresh.close();
    }
  }

  private void assertBadRequest(Call call, String messagePart) {
    Reply reply = containers.handle(call);
    assertThat(reply).isInstanceOf(Reply.Failure.class);
    Reply.Failure failure = (Reply.Failure) reply;
    assertThat(failure.status()).isEqualTo(400);
    assertThat(failure.message()).contains(messagePart);
  }

  static Call.Builder call(Call.Type type) {
    return Call.newBuilder().setType(type).setFrameworkId(FRAMEWORK).setExecutorId(EXECUTOR_ID);
  }

  static Call update(TaskStatus status) {
    return call(Call.Type.UPDATE).setUpdate(Call.Update.newBuilder().setStatus(status)).build();
  }

  static TaskStatus.Builder executorStatus(String task, TaskState state) {
    return TaskStatus.newBuilder()
        .setTaskId(TaskID.newBuilder().setValue(task))
        .setState(state)
        .setSource(TaskStatus.Source.SOURCE_EXECUTOR)
        .setExecutorId(EXECUTOR_ID)
        .setUuid(Statuses.randomUuid());
  }

  RecordingEventStream subscribe() {
    return subscribe(Call.Subscribe.newBuilder());
  }

  /** SUBSCRIBE, as the executor does once it runs (its record is written by then). */
  RecordingEventStream subscribe(Call.Subscribe.Builder subscribe) {
    awaitRecord();
    Reply reply = containers.subscribe(call(Call.Type.SUBSCRIBE).setSubscribe(subscribe).build());
    assertThat(reply).isInstanceOf(Reply.Stream.class);
    Reply.Stream stream = (Reply.Stream) reply;
    assertThat(stream.streamId()).isEmpty();
    RecordingEventStream events = new RecordingEventStream();
    stream.opened().accept(events);
    return events;
  }

  private Path awaitSandbox() {
    Path sandboxes = dir.resolve(Containers.SANDBOXES);
    Eventually.await("a sandbox", () -> list(sandboxes).length > 0);
    return list(sandboxes)[0];
  }

  private Path awaitSandboxFile(String name) {
    Path sandbox = awaitSandbox();
    Eventually.await(name + " in the sandbox", () -> Files.exists(sandbox.resolve(name)));
    return sandbox.resolve(name);
  }

  /** The executor's pid, from its checkpoint record, once written. */
  private long awaitExecutorPid() throws IOException {
    String json = Files.readString(awaitRecord());
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json).get("pid").asLong();
  }

  private Path awaitRecord() {
    Path records = dir.resolve(Containers.RECORDS);
    Eventually.await("the executor's record", () -> list(records).length > 0);
    return list(records)[0];
  }

  private static Path[] list(Path dir) {
    try (var files = Files.list(dir)) {
      return files.filter(p -> !p.getFileName().toString().startsWith(".")).toArray(Path[]::new);
    } catch (IOException e) {
      return new Path[0];
    }
  }
}
