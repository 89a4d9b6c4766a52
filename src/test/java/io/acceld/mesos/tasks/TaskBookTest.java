package io.acceld.mesos.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.acceld.allocation.RuntimeSpec;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.CommandInfo;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Label;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.testing.Eventually;
import io.acceld.testing.MutableClock;
import io.acceld.testing.TestDevices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaskBookTest {
  static final String GPU0 = TestDevices.uuid(0);
  static final String GPU1 = TestDevices.uuid(1);
  static final FrameworkID FW = FrameworkID.newBuilder().setValue("m-0000").build();
  static final AgentID AGENT = AgentID.newBuilder().setValue("m-S0").build();
  static final Duration RETRY = Duration.ofMillis(60);

  @TempDir Path dir;
  final MutableClock clock = new MutableClock();
  final DeviceLedger ledger = DeviceLedger.inMemory(clock);
  final RecordingForwarder forwarder = new RecordingForwarder();
  TaskBook book;

  /** Records what the book forwards, as the master's subscription would receive it. */
  static final class RecordingForwarder implements StatusForwarder {
    final List<TaskStatus> forwarded = new CopyOnWriteArrayList<>();
    final List<Holder.MesosTask> released = new CopyOnWriteArrayList<>();

    @Override
    public boolean forward(FrameworkID framework, TaskStatus status) {
      forwarded.add(status);
      return true;
    }

    @Override
    public void message(FrameworkID framework, ExecutorID executor, ByteString data) {}

    @Override
    public void released(Holder.MesosTask task) {
      released.add(task);
    }

    long count(TaskState state) {
      return forwarded.stream().filter(s -> s.getState() == state).count();
    }
  }

  @BeforeEach
  void open() throws Exception {
    Inventory inv =
        TestDevices.inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0)));
    ledger.onChange(inv, InventoryDiff.between(Inventory.EMPTY, inv));
    book = TaskBook.open(dir, ledger, clock, RETRY);
    book.attach(forwarder);
  }

  @AfterEach
  void close() {
    book.close();
    ledger.close();
  }

  static FrameworkInfo framework(FrameworkInfo.Capability.Type... caps) {
    FrameworkInfo.Builder b = FrameworkInfo.newBuilder().setUser("u").setName("fw").setId(FW);
    for (FrameworkInfo.Capability.Type c : caps) {
      b.addCapabilities(FrameworkInfo.Capability.newBuilder().setType(c));
    }
    return b.build();
  }

  static TaskInfo task(String id) {
    return TaskInfo.newBuilder()
        .setName(id)
        .setTaskId(TaskID.newBuilder().setValue(id))
        .setAgentId(AGENT)
        .setCommand(CommandInfo.newBuilder().setValue("true"))
        .build();
  }

  /** Leases the devices as the master does, then records the task. */
  void launch(FrameworkInfo fw, String id, String... devices) throws Exception {
    if (devices.length > 0) {
      assertThat(
              ledger
                  .lease(
                      new Holder.MesosTask(FW.getValue(), id),
                      java.util.Arrays.stream(devices).map(ReplicaId::whole).toList(),
                      "test")
                  .granted())
          .isTrue();
    }
    book.record(
        fw,
        new LaunchedTask(
            task(id), List.of(devices), new RuntimeSpec(Map.of(), List.of(), List.of(), List.of())),
        ExecutorID.newBuilder().setValue(id).build(),
        java.util.Optional.empty());
  }

  /** t1 (GPU 0), t2 (GPU 1) and t3 (no device) launched, and the book closed to be reopened. */
  void launchThreeTasksAndClose() throws Exception {
    launch(framework(), "t1", GPU0);
    launch(framework(), "t2", GPU1);
    launch(framework(), "t3");
    book.close();
  }

  /**
   * t3's first update, awaited at the forwarder: the book has one sender thread, which sends in
   * order, so once it is up every send queued before it has been made.
   */
  void awaitEveryEarlierSend() throws Exception {
    book.update(FW, status("t3", TaskState.TASK_STARTING, 4));
    Eventually.await(
        "t3's update sent",
        () -> forwarder.forwarded.stream().anyMatch(st -> st.getTaskId().getValue().equals("t3")));
  }

  static TaskStatus status(String task, TaskState state, int n) {
    return TaskStatus.newBuilder()
        .setTaskId(TaskID.newBuilder().setValue(task))
        .setState(state)
        .setSource(TaskStatus.Source.SOURCE_EXECUTOR)
        .setUuid(
            ByteString.copyFrom(
                new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, (byte) n}))
        .build();
  }

  static TaskID id(String task) {
    return TaskID.newBuilder().setValue(task).build();
  }

  @Test
  void theHeadIsResentUntilAcknowledgedAndOnlyThenTheNextIsSent() throws Exception {
    launch(framework(), "t1", GPU0);
    book.update(FW, status("t1", TaskState.TASK_STARTING, 1));
    book.update(FW, status("t1", TaskState.TASK_RUNNING, 2));

    Eventually.await("STARTING resent", () -> forwarder.count(TaskState.TASK_STARTING) >= 3);
    assertThat(forwarder.count(TaskState.TASK_RUNNING)).as("FIFO: only the head").isZero();

    assertThat(book.acknowledge(FW, id("t1"), status("t1", TaskState.TASK_RUNNING, 2).getUuid()))
        .as("not the head")
        .isFalse();
    assertThat(book.acknowledge(FW, id("t1"), status("t1", TaskState.TASK_STARTING, 1).getUuid()))
        .isTrue();
    Eventually.await("RUNNING sent", () -> forwarder.count(TaskState.TASK_RUNNING) >= 1);
    long starting = forwarder.count(TaskState.TASK_STARTING);
    assertThat(book.acknowledge(FW, id("t1"), status("t1", TaskState.TASK_RUNNING, 2).getUuid()))
        .isTrue();
    long t1Sent = forwarder.forwarded.stream().filter(s -> s.getTaskId().equals(id("t1"))).count();
    // Nothing of t1 is outstanding. A second task's unacknowledged head, resent on the same
    // timers, shows several retry intervals passing; t1 must not be resent meanwhile.
    launch(framework(), "t2", GPU1);
    book.update(FW, status("t2", TaskState.TASK_STARTING, 3));
    Eventually.await(
        "t2's head resent three times",
        () ->
            forwarder.forwarded.stream().filter(s -> s.getTaskId().equals(id("t2"))).count() >= 4);
    assertThat(forwarder.forwarded.stream().filter(s -> s.getTaskId().equals(id("t1"))).count())
        .as("t1, fully acknowledged, is never resent")
        .isEqualTo(t1Sent);
    assertThat(
            forwarder.forwarded.stream()
                .filter(s -> s.getTaskId().equals(id("t1")))
                .filter(s -> s.getState() == TaskState.TASK_STARTING)
                .count())
        .isEqualTo(starting);
  }

  @Test
  void everyForwardedStatusNamesTheAgentTheExecutorAndTheDevices() throws Exception {
    launch(framework(), "t1", GPU0, GPU1);
    book.update(FW, status("t1", TaskState.TASK_RUNNING, 1).toBuilder().clearExecutorId().build());

    Eventually.await("forwarded", () -> !forwarder.forwarded.isEmpty());
    TaskStatus sent = forwarder.forwarded.get(0);
    assertThat(sent.getAgentId()).isEqualTo(AGENT);
    assertThat(sent.getExecutorId().getValue()).isEqualTo("t1");
    assertThat(sent.getLabels().getLabelsList())
        .containsExactly(
            Label.newBuilder().setKey(TaskBook.DEVICES_LABEL).setValue(GPU0 + "," + GPU1).build());
  }

  @Test
  void aTerminalStatusReleasesTheLeaseAtOnce() throws Exception {
    launch(framework(), "t1", GPU0);
    book.update(FW, status("t1", TaskState.TASK_RUNNING, 1));
    assertThat(ledger.current().isLeased(GPU0)).isTrue();

    book.update(FW, status("t1", TaskState.TASK_FINISHED, 2));

    assertThat(ledger.current().isLeased(GPU0)).as("released before update returned").isFalse();
    assertThat(forwarder.released).containsExactly(new Holder.MesosTask(FW.getValue(), "t1"));
    assertThat(book.task(FW, id("t1")).orElseThrow().state()).isEqualTo(TaskState.TASK_FINISHED);
  }

  @Test
  void unacknowledgedUpdatesSurviveAReopenAndAreResentInOrder() throws Exception {
    launch(framework(), "t1", GPU0);
    book.update(FW, status("t1", TaskState.TASK_STARTING, 1));
    book.update(FW, status("t1", TaskState.TASK_RUNNING, 2));
    // What update() returned after is on disk already: a second book reads it without a close.
    try (TaskBook other = TaskBook.open(dir, ledger, clock, RETRY)) {
      assertThat(other.task(FW, id("t1")).orElseThrow().unacknowledged()).isEqualTo(2);
    }
    book.close();

    RecordingForwarder after = new RecordingForwarder();
    book = TaskBook.open(dir, ledger, clock, RETRY);
    book.attach(after);
    book.resendUnacknowledged(FW); // the framework subscribes again

    Eventually.await("head resent", () -> after.count(TaskState.TASK_STARTING) >= 1);
    assertThat(after.count(TaskState.TASK_RUNNING)).isZero();
    book.acknowledge(FW, id("t1"), status("t1", TaskState.TASK_STARTING, 1).getUuid());
    Eventually.await("next sent", () -> after.count(TaskState.TASK_RUNNING) >= 1);
    assertThat(book.task(FW, id("t1")).orElseThrow().deviceIds()).containsExactly(GPU0);
  }

  @Test
  void aRestoredUpdateIsSentOnceWhenItsFrameworkSubscribesAgain() throws Exception {
    launch(framework(), "t1", GPU0);
    book.update(FW, status("t1", TaskState.TASK_STARTING, 1));
    book.update(FW, status("t1", TaskState.TASK_RUNNING, 2));
    book.close();

    // No retry within the test: every send counted is the restart's or the subscription's.
    RecordingForwarder after = new RecordingForwarder();
    book = TaskBook.open(dir, ledger, clock, Duration.ofHours(1));
    book.attach(after);
    book.resendUnacknowledged(FW);
    Eventually.await("the head sent", () -> after.count(TaskState.TASK_STARTING) >= 1);
    book.acknowledge(FW, id("t1"), status("t1", TaskState.TASK_STARTING, 1).getUuid());

    // One sender thread, in order: once RUNNING is up, every earlier send has been made.
    Eventually.await("the next update sent", () -> after.count(TaskState.TASK_RUNNING) >= 1);
    assertThat(after.count(TaskState.TASK_STARTING))
        .as("the restored head, sent for the subscription and not also for the restart")
        .isEqualTo(1);
  }

  @Test
  void theCheckpointIsOnlyTheOwnersWhateverTheUmask() throws Exception {
    launch(framework(), "t1", GPU0);
    try (var files = Files.list(dir.resolve("tasks"))) {
      for (Path f : files.toList()) {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
            .isEqualTo("rw-------");
      }
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("tasks"))))
        .isEqualTo("rwx------");
  }

  @Test
  void afterRecoveryTasksTheContainersLostAreReportedAndOnlyLiveLeasesStay() throws Exception {
    launch(framework(), "alive", GPU0);
    launch(framework(), "dead", GPU1);
    book.update(FW, status("alive", TaskState.TASK_RUNNING, 1));
    book.update(FW, status("dead", TaskState.TASK_RUNNING, 2));
    book.acknowledge(FW, id("alive"), status("alive", TaskState.TASK_RUNNING, 1).getUuid());
    book.acknowledge(FW, id("dead"), status("dead", TaskState.TASK_RUNNING, 2).getUuid());
    // A lease the book cannot explain: the agent died between leasing and recording.
    ledger.release(new Holder.MesosTask(FW.getValue(), "dead"));
    ledger.lease(
        new Holder.MesosTask(FW.getValue(), "never-recorded"), List.of(ReplicaId.whole(GPU1)), "t");
    book.close();

    book = TaskBook.open(dir, ledger, clock, RETRY);
    book.attach(forwarder);
    book.afterRecovery(Set.of(new Holder.MesosTask(FW.getValue(), "alive")));

    TaskView dead = book.task(FW, id("dead")).orElseThrow();
    assertThat(dead.state()).isEqualTo(TaskState.TASK_LOST);
    assertThat(dead.latest().getReason()).isEqualTo(TaskStatus.Reason.REASON_AGENT_RESTARTED);
    assertThat(book.task(FW, id("alive")).orElseThrow().state()).isEqualTo(TaskState.TASK_RUNNING);
    assertThat(ledger.current().leases())
        .extracting(Lease::holder)
        .containsExactly(new Holder.MesosTask(FW.getValue(), "alive"));
    Eventually.await("LOST forwarded", () -> forwarder.count(TaskState.TASK_LOST) >= 1);
  }

  @Test
  void aPartitionAwareFrameworkIsToldItsLostTaskIsGone() throws Exception {
    launch(framework(FrameworkInfo.Capability.Type.PARTITION_AWARE), "t1", GPU0);

    book.afterRecovery(Set.of());

    assertThat(book.task(FW, id("t1")).orElseThrow().state()).isEqualTo(TaskState.TASK_GONE);
    assertThat(ledger.current().isLeased(GPU0)).isFalse();
  }

  @Test
  void aTornDownFrameworksUpdatesStopButItsRunningTaskKeepsItsDevicesUntilItEnds()
      throws Exception {
    launch(framework(), "t1", GPU0);
    book.update(FW, status("t1", TaskState.TASK_RUNNING, 1));
    book.removeFramework(FW);
    assertThat(ledger.current().isLeased(GPU0)).isTrue();

    book.update(FW, status("t1", TaskState.TASK_KILLED, 2));

    assertThat(ledger.current().isLeased(GPU0)).isFalse();
    assertThat(book.tasks()).isEmpty();
    book.close();
    book = TaskBook.open(dir, ledger, clock, RETRY);
    assertThat(book.tasks()).as("the row is gone from disk too").isEmpty();
  }

  @Test
  void anOperationWhoseRowsCannotBeWrittenIsNotRecordedNowOrAfterTheDiskReturns() throws Exception {
    launch(framework(), "before", GPU0);
    Path tasks = dir.resolve("tasks");
    Path aside = dir.resolve("tasks.aside");
    Files.move(tasks, aside);
    Files.writeString(tasks, "not a directory");
    LaunchedTask a =
        new LaunchedTask(
            task("a"), List.of(GPU1), new RuntimeSpec(Map.of(), List.of(), List.of(), List.of()));
    LaunchedTask b =
        new LaunchedTask(
            task("b"), List.of(), new RuntimeSpec(Map.of(), List.of(), List.of(), List.of()));

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                book.recordAll(
                    framework(),
                    List.of(
                        new TaskBook.NewTask(
                            a, ExecutorID.newBuilder().setValue("a").build(), Optional.empty()),
                        new TaskBook.NewTask(
                            b, ExecutorID.newBuilder().setValue("b").build(), Optional.empty()))))
        .isInstanceOf(java.io.IOException.class);
    assertThat(book.tasks()).extracting(TaskView::taskId).containsExactly("before");
    assertThat(book.checkpointProblem()).isPresent();

    Files.delete(tasks);
    Files.move(aside, tasks);
    launch(framework(), "after");
    assertThat(book.checkpointProblem()).isEmpty();
    book.close();
    book = TaskBook.open(dir, ledger, clock, RETRY);
    assertThat(book.tasks())
        .as("the failed operation's rows did not ride along with the next write")
        .extracting(TaskView::taskId)
        .containsExactly("before", "after");
  }

  @Test
  void anUpdateIsNeitherSentNorReturnedBeforeItIsOnDiskAndDoesNotHoldUpOtherTasks()
      throws Exception {
    launch(framework(), "t1", GPU0);
    launch(framework(), "t2", GPU1);
    book.close();
    HeldForce held = new HeldForce();
    book = TaskBook.open(dir, ledger, clock, RETRY, held);
    book.attach(forwarder);
    held.arm();
    var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      var first = pool.submit(() -> book.update(FW, status("t1", TaskState.TASK_STARTING, 1)));
      assertThat(held.awaitHeld()).isTrue();
      // t2's update arrives while t1's force is on the disk: it is not held up by the book's lock.
      var second = pool.submit(() -> book.update(FW, status("t2", TaskState.TASK_STARTING, 2)));
      Eventually.await(
          "t2's record buffered behind the force",
          () -> book.task(FW, id("t2")).orElseThrow().unacknowledged() == 1);
      // A resubscription meanwhile sends every head the book has: none, as none is durable. The
      // resends it schedules show that the sender has tried.
      book.resendUnacknowledged(FW);
      Eventually.await("the heads tried again", () -> book.statusUpdateRetries() >= 2);
      assertThat(forwarder.forwarded).as("nothing sent before it is on disk").isEmpty();
      assertThat(first.isDone()).as("t1's update waits for its force").isFalse();
      assertThat(second.isDone()).isFalse();

      held.release();
      first.get(30, java.util.concurrent.TimeUnit.SECONDS);
      second.get(30, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    Eventually.await(
        "both sent once durable",
        () ->
            forwarder.forwarded.stream()
                    .map(st -> st.getTaskId().getValue())
                    .collect(java.util.stream.Collectors.toSet())
                    .size()
                == 2);
  }

  /**
   * The executor's next update arrives while the scheduler's acknowledgement of the head is on its
   * way to the disk: it becomes the head, and it goes up once, not once from each side. (The
   * scheduler saw TASK_FINISHED twice before it could acknowledge it, on a busy CI machine.)
   */
  @Test
  void anUpdateThatArrivesWhileTheHeadsAcknowledgementIsForcedIsSentOnce() throws Exception {
    launchThreeTasksAndClose();
    HeldForce held = new HeldForce();
    // No resends during the test: every forward counted is a send.
    book = TaskBook.open(dir, ledger, clock, Duration.ofMinutes(10), held);
    book.attach(forwarder);
    TaskStatus running = status("t1", TaskState.TASK_RUNNING, 1);
    book.update(FW, running);
    Eventually.await("RUNNING sent", () -> forwarder.count(TaskState.TASK_RUNNING) == 1);
    held.arm();
    var pool = java.util.concurrent.Executors.newFixedThreadPool(3);
    try {
      // t2's update holds the disk, so that the acknowledgement and the next update are forced
      // together, as they are when they come close together on a busy node.
      var other = pool.submit(() -> book.update(FW, status("t2", TaskState.TASK_STARTING, 2)));
      assertThat(held.awaitHeld()).isTrue();
      var ack = pool.submit(() -> book.acknowledge(FW, id("t1"), running.getUuid()));
      Eventually.await(
          "the acknowledgement buffered",
          () -> book.task(FW, id("t1")).orElseThrow().unacknowledged() == 0);
      var finished = pool.submit(() -> book.update(FW, status("t1", TaskState.TASK_FINISHED, 3)));
      Eventually.await(
          "FINISHED buffered behind it",
          () -> book.task(FW, id("t1")).orElseThrow().unacknowledged() == 1);
      held.release();
      other.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(ack.get(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      finished.get(30, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    // Every send of t1's FINISHED was queued before t3's update returned.
    awaitEveryEarlierSend();
    assertThat(forwarder.count(TaskState.TASK_FINISHED)).isEqualTo(1);
  }

  @Test
  void aSendAskedForWhileOneIsQueuedPutsTheUpdateUpOnce() throws Exception {
    launchThreeTasksAndClose();
    // No resends during the test: every forward counted is a send.
    book = TaskBook.open(dir, ledger, clock, Duration.ofMinutes(10));
    java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    book.attach(
        new StatusForwarder() {
          @Override
          public boolean forward(FrameworkID framework, TaskStatus status) {
            if (status.getTaskId().getValue().equals("t2") && holding.getCount() > 0) {
              holding.countDown();
              try {
                release.await(30, java.util.concurrent.TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return forwarder.forward(framework, status);
          }

          @Override
          public void message(FrameworkID framework, ExecutorID executor, ByteString data) {}

          @Override
          public void released(Holder.MesosTask task) {}
        });
    TaskStatus starting = status("t1", TaskState.TASK_STARTING, 1);
    book.update(FW, starting);
    book.update(FW, status("t1", TaskState.TASK_RUNNING, 2));
    Eventually.await("STARTING sent", () -> forwarder.count(TaskState.TASK_STARTING) == 1);
    // t2's first update holds the sender thread in the forwarder: what follows only queues.
    book.update(FW, status("t2", TaskState.TASK_STARTING, 3));
    assertThat(holding.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    book.resendUnacknowledged(FW); // the framework subscribes again: t1's head is to be sent
    // ... and acknowledges the head it already had, which makes RUNNING the head, to be sent too.
    assertThat(book.acknowledge(FW, id("t1"), starting.getUuid())).isTrue();
    release.countDown();

    awaitEveryEarlierSend();
    assertThat(forwarder.count(TaskState.TASK_RUNNING))
        .as("the queued delivery sends the head as it is when it runs; the second ask adds none")
        .isEqualTo(1);
  }

  @Test
  void aWholeRecordThatIsNotARowIsSetAsideAndTheBookServes() throws Exception {
    launch(framework(), "good", GPU0);
    book.close();
    try (TaskJournal j = TaskJournal.open(dir.resolve("tasks"), Map::of)) {
      j.await(j.append("task-0123", "{not json".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    book = TaskBook.open(dir, ledger, clock, RETRY);

    assertThat(book.tasks()).extracting(TaskView::taskId).containsExactly("good");
    assertThat(Files.readString(dir.resolve("tasks/task-0123.json.damaged")))
        .isEqualTo("{not json");
    launch(framework(), "next", GPU1);
    assertThat(book.checkpointProblem()).isEmpty();
  }

  /** A row in the format before the task journal: one JSON file per task. */
  void writeLegacyFile(String task, String device, String content) throws Exception {
    String name = TaskCheckpoint.keyOf(FW.getValue(), task) + ".json";
    if (content == null) {
      TaskStatus staging =
          TaskStatus.newBuilder()
              .setTaskId(id(task))
              .setState(TaskState.TASK_STAGING)
              .setAgentId(AGENT)
              .build();
      java.util.Base64.Encoder b64 = java.util.Base64.getEncoder();
      content =
          "{\"format\":1,\"framework\":\""
              + b64.encodeToString(framework().toByteArray())
              + "\",\"task\":\""
              + b64.encodeToString(task(task).toByteArray())
              + "\",\"executor_id\":\""
              + task
              + "\",\"devices\":[\""
              + device
              + "\"],\"latest\":\""
              + b64.encodeToString(staging.toByteArray())
              + "\",\"pending\":[\""
              + b64.encodeToString(status(task, TaskState.TASK_STARTING, 7).toByteArray())
              + "\"]}";
    }
    Files.writeString(dir.resolve("tasks").resolve(name), content);
  }

  @Test
  void aNodeUpgradedInPlaceKeepsItsTasksAndADamagedOldFileIsSetAside() throws Exception {
    book.close();
    // The directory as the version before the journal left it: no snapshot, no journal.
    try (var files = Files.list(dir.resolve("tasks"))) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    writeLegacyFile("good", GPU0, null);
    writeLegacyFile("bad", GPU1, "{not json");
    Path badFile =
        dir.resolve("tasks").resolve(TaskCheckpoint.keyOf(FW.getValue(), "bad") + ".json");
    ledger.lease(new Holder.MesosTask(FW.getValue(), "good"), List.of(ReplicaId.whole(GPU0)), "t");
    ledger.lease(new Holder.MesosTask(FW.getValue(), "bad"), List.of(ReplicaId.whole(GPU1)), "t");

    book = TaskBook.open(dir, ledger, clock, RETRY);
    book.attach(forwarder);
    book.afterRecovery(
        Set.of(
            new Holder.MesosTask(FW.getValue(), "good"),
            new Holder.MesosTask(FW.getValue(), "bad")));

    assertThat(book.tasks()).extracting(TaskView::taskId).containsExactly("good");
    assertThat(book.task(FW, id("good")).orElseThrow().unacknowledged()).isEqualTo(1);
    book.resendUnacknowledged(FW); // the framework subscribes again
    Eventually.await("its update resent", () -> forwarder.count(TaskState.TASK_STARTING) >= 1);
    assertThat(Files.exists(badFile.resolveSibling(badFile.getFileName() + ".damaged"))).isTrue();
    assertThat(ledger.current().isLeased(GPU1)).as("its process still runs").isTrue();
    try (var files = Files.list(dir.resolve("tasks"))) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .as("the old files are in the journal now")
          .noneMatch(n -> n.startsWith("task-") && n.endsWith(".json"));
    }

    // Acknowledged after the upgrade, then restarted: the journal has it, no old file resurfaces.
    assertThat(
            book.acknowledge(FW, id("good"), status("good", TaskState.TASK_STARTING, 7).getUuid()))
        .isTrue();
    book.close();
    book = TaskBook.open(dir, ledger, clock, RETRY);
    assertThat(book.task(FW, id("good")).orElseThrow().unacknowledged()).isZero();
  }

  @Test
  void aDamagedJournalRecordIsSetAsideAndTheRestRestoredAndARunningProcessKeepsItsDevices()
      throws Exception {
    launch(framework(), "good", GPU0);
    launch(framework(), "bad", GPU1);
    book.update(FW, status("good", TaskState.TASK_RUNNING, 1));
    book.close();
    Path journal;
    try (var files = Files.list(dir.resolve("tasks"))) {
      journal =
          files
              .filter(f -> f.getFileName().toString().startsWith("journal-"))
              .findFirst()
              .orElseThrow();
    }
    // Damage the record of "bad": one bit of its TaskInfo.
    byte[] content = Files.readAllBytes(journal);
    byte[] marker =
        java.util.Base64.getEncoder()
            .encodeToString(task("bad").toByteArray())
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    int at = JournalBytes.indexOf(content, marker);
    content[at + 2] ^= 0x01;
    Files.write(journal, content);

    book = TaskBook.open(dir, ledger, clock, RETRY);
    book.afterRecovery(
        Set.of(
            new Holder.MesosTask(FW.getValue(), "good"),
            new Holder.MesosTask(FW.getValue(), "bad")));

    assertThat(book.tasks()).extracting(TaskView::taskId).containsExactly("good");
    assertThat(book.task(FW, id("good")).orElseThrow().state())
        .as("the record after the damage is restored")
        .isEqualTo(TaskState.TASK_RUNNING);
    assertThat(Files.exists(journal.resolveSibling(journal.getFileName() + ".damaged"))).isTrue();
    assertThat(ledger.current().isLeased(GPU1)).as("its process still runs").isTrue();
  }
}
