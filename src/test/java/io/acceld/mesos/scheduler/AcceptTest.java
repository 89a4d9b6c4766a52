package io.acceld.mesos.scheduler;

import static io.acceld.mesos.scheduler.MasterFixture.accept;
import static io.acceld.mesos.scheduler.MasterFixture.framework;
import static io.acceld.mesos.scheduler.MasterFixture.gpuFramework;
import static io.acceld.mesos.scheduler.MasterFixture.nextUpdate;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.acceld.allocation.RuntimeSpecs;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.scheduler.MasterFixture.Scheduler;
import io.acceld.mesos.tasks.Launch;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.Filters;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Label;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.OfferID;
import io.acceld.proto.mesos.v1.TaskGroupInfo;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.testing.Eventually;
import io.acceld.testing.TestDevices;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AcceptTest {
  @TempDir Path root;
  MasterFixture m;

  void start() throws Exception {
    m =
        new MasterFixture(
            root,
            List.of(
                TestDevices.nvidia(0, 0),
                TestDevices.nvidia(1, 0),
                TestDevices.nvidia(2, 1),
                TestDevices.nvidia(3, 1)));
  }

  @AfterEach
  void stop() {
    if (m != null) {
      m.close();
    }
  }

  static String label(TaskStatus s) {
    return s.getLabels().getLabelsList().stream()
        .filter(l -> l.getKey().equals(TaskBook.DEVICES_LABEL))
        .map(Label::getValue)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void anAcceptedTaskHoldsItsGpusInTheLedgerSeesThemInItsEnvironmentAndReportsThem()
      throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());

    assertThat(m.call(s, accept(m.nextOffer(s), m.task("t1", 2))))
        .isInstanceOf(Reply.Accepted.class);

    TaskStatus starting = nextUpdate(s, "t1");
    assertThat(starting.getState()).isEqualTo(TaskState.TASK_STARTING);
    Launch launch = m.launcher.launches.get(0);
    List<String> devices = launch.tasks().get(0).deviceIds();
    assertThat(devices).hasSize(2);
    assertThat(label(starting)).isEqualTo(String.join(",", devices));
    assertThat(launch.tasks().get(0).runtime().env().get(RuntimeSpecs.NVIDIA_VISIBLE_DEVICES))
        .isEqualTo(String.join(",", devices));
    assertThat(launch.agent().getId()).isEqualTo(m.agent());
    assertThat(launch.framework().getId()).isEqualTo(s.id());
    assertThat(m.ledger.current().leases())
        .extracting(Lease::holder)
        .containsOnly(new Holder.MesosTask(s.id().getValue(), "t1"));
    // NUMA-close pair: the chooser's topology-aware choice.
    assertThat(
            Set.of(
                Set.of(TestDevices.uuid(0), TestDevices.uuid(1)),
                Set.of(TestDevices.uuid(2), TestDevices.uuid(3))))
        .contains(Set.copyOf(devices));

    m.acknowledge(s, starting);
    TaskStatus running = nextUpdate(s, "t1");
    assertThat(running.getState()).isEqualTo(TaskState.TASK_RUNNING);
    m.acknowledge(s, running);
    m.launcher.finish(s.id(), TaskID.newBuilder().setValue("t1").build());
    assertThat(nextUpdate(s, "t1").getState()).isEqualTo(TaskState.TASK_FINISHED);
    assertThat(m.ledger.current().leases()).isEmpty();
  }

  @Test
  void theFreedDevicesAreOfferedAgainAndWhatATaskUsesIsNot() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());
    Call.Builder accept = accept(m.nextOffer(s), m.task("t1", 3));
    accept.getAcceptBuilder().setFilters(Filters.newBuilder().setRefuseSeconds(0));
    m.call(s, accept);

    Offer rest = m.nextOffer(s);

    assertThat(MasterFixture.amount(rest, "gpus"))
        .as("updates %s", s.events().all().stream().filter(e -> e.hasUpdate()).toList())
        .isEqualTo(1);
    assertThat(MasterFixture.amount(rest, "cpus")).isEqualTo(6);
    assertThat(MasterFixture.amount(rest, "mem")).isEqualTo(16384 - 1024 - 128);
  }

  @Test
  void aFractionalGpuIsATaskErrorWithMesossText() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());

    m.call(s, accept(m.nextOffer(s), m.task("t1", 0.1)));

    TaskStatus error = nextUpdate(s, "t1");
    assertThat(error.getState()).isEqualTo(TaskState.TASK_ERROR);
    assertThat(error.getReason()).isEqualTo(TaskStatus.Reason.REASON_TASK_INVALID);
    assertThat(error.getSource()).isEqualTo(TaskStatus.Source.SOURCE_MASTER);
    assertThat(error.getMessage()).contains("The 'gpus' resource must be an unsigned integer");
    assertThat(m.ledger.current().leases()).isEmpty();
    assertThat(m.launcher.launches).isEmpty();
  }

  @Test
  void askingForMoreThanWasOfferedIsATaskError() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());

    m.call(s, accept(m.nextOffer(s), m.task("t1", 3), m.task("t2", 2)));

    TaskStatus error = nextUpdate(s, "t2");
    assertThat(error.getState()).isEqualTo(TaskState.TASK_ERROR);
    assertThat(error.getMessage()).startsWith("Task uses more resources");
    assertThat(m.ledger.current().leases()).hasSize(3);
  }

  @Test
  void duplicateTaskIdsAreTaskErrors() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());

    m.call(s, accept(m.nextOffer(s), m.task("t1", 1), m.task("t1", 1)));

    TaskStatus first = nextUpdate(s, "t1");
    TaskStatus second = nextUpdate(s, "t1");
    assertThat(List.of(first.getState(), second.getState())).contains(TaskState.TASK_ERROR);
    TaskStatus error = first.getState() == TaskState.TASK_ERROR ? first : second;
    assertThat(error.getMessage()).contains("Task has duplicate ID");
    assertThat(m.ledger.current().leases()).hasSize(1);
  }

  @Test
  void anUnknownOrUsedOfferIsLostForMostAndDroppedForPartitionAwareFrameworks() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());
    Offer offer = m.nextOffer(s);
    m.call(s, accept(offer, m.task("t1", 1)));

    m.call(s, accept(offer, m.task("t2", 1)));

    TaskStatus lost = nextUpdate(s, "t2");
    assertThat(lost.getState()).isEqualTo(TaskState.TASK_LOST);
    assertThat(lost.getReason()).isEqualTo(TaskStatus.Reason.REASON_INVALID_OFFERS);
    assertThat(lost.getMessage()).contains("is no longer valid");

    Scheduler aware =
        m.subscribe(
            framework(
                FrameworkInfo.Capability.Type.GPU_RESOURCES,
                FrameworkInfo.Capability.Type.PARTITION_AWARE));
    m.call(
        aware,
        accept(
            OfferID.newBuilder().setValue("no-such-offer").build(),
            io.acceld.proto.mesos.v1.Offer.Operation.Launch.newBuilder()
                .addTaskInfos(m.task("t3", 1))));
    TaskStatus dropped = nextUpdate(aware, "t3");
    assertThat(dropped.getState()).isEqualTo(TaskState.TASK_DROPPED);
    assertThat(dropped.getReason()).isEqualTo(TaskStatus.Reason.REASON_INVALID_OFFERS);
  }

  @Test
  void whenAPodTookADeviceAMomentAgoTheTaskIsDroppedNamingItAndNothingRuns() throws Exception {
    // The kubelet's Allocate lands between the offer and the lease: in the chooser, which runs
    // just before the ledger call, so the rescind cannot get there first.
    AtomicReference<MasterFixture> fixture = new AtomicReference<>();
    TopologyAwareChooser real = new TopologyAwareChooser();
    m =
        new MasterFixture(
            root,
            List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0)),
            (inventory, available, must, size) -> {
              List<String> chosen = real.choose(inventory, available, must, size);
              fixture
                  .get()
                  .ledger
                  .lease(
                      new Holder.KubeletPending("alloc-9"),
                      List.of(ReplicaId.whole(chosen.get(0))),
                      "Allocate");
              return chosen;
            },
            true);
    fixture.set(m);
    Scheduler s = m.subscribe(gpuFramework());

    m.call(s, accept(m.nextOffer(s), m.task("t1", 2)));

    TaskStatus dropped = nextUpdate(s, "t1");
    assertThat(dropped.getState()).isEqualTo(TaskState.TASK_DROPPED);
    assertThat(dropped.getReason()).isEqualTo(TaskStatus.Reason.REASON_INVALID_OFFERS);
    assertThat(dropped.getMessage()).contains("is held by pending kubelet allocation alloc-9");
    assertThat(m.launcher.launches).isEmpty();
    assertThat(m.ledger.current().leases())
        .extracting(Lease::holder)
        .containsOnly(new Holder.KubeletPending("alloc-9"));
  }

  @Test
  void aLaunchHandsEachTaskToTheExecutorItsTaskInfoNamesAndCommandTasksToNone() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());
    Offer offer = m.nextOffer(s);
    ExecutorInfo custom =
        ExecutorInfo.newBuilder()
            .setExecutorId(ExecutorID.newBuilder().setValue("custom-exec"))
            .setCommand(io.acceld.proto.mesos.v1.CommandInfo.newBuilder().setValue("my-executor"))
            .build();

    m.call(
        s,
        accept(offer, m.task("custom", 1).clearCommand().setExecutor(custom), m.task("plain", 1)));

    Eventually.await("both launched", () -> m.launcher.launches.size() == 2);
    assertThat(m.launcher.launches)
        .allSatisfy(l -> assertThat(l.group()).isFalse())
        .allSatisfy(l -> assertThat(l.tasks()).hasSize(1));
    Launch customLaunch =
        m.launcher.launches.stream()
            .filter(l -> l.tasks().get(0).task().getTaskId().getValue().equals("custom"))
            .findFirst()
            .orElseThrow();
    assertThat(customLaunch.executor()).contains(custom);
    Launch plainLaunch =
        m.launcher.launches.stream().filter(l -> l != customLaunch).findFirst().orElseThrow();
    assertThat(plainLaunch.executor()).isEmpty();
  }

  @Test
  void aTaskGroupLaunchesAsOneWithDistinctDevices() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());
    Offer offer = m.nextOffer(s);
    ExecutorInfo executor =
        ExecutorInfo.newBuilder()
            .setExecutorId(ExecutorID.newBuilder().setValue("group-exec"))
            .setType(ExecutorInfo.Type.DEFAULT)
            .addResources(MasterFixture.scalar("cpus", 0.1))
            .build();

    m.call(
        s,
        Call.newBuilder()
            .setType(Call.Type.ACCEPT)
            .setAccept(
                Call.Accept.newBuilder()
                    .addOfferIds(offer.getId())
                    .addOperations(
                        Offer.Operation.newBuilder()
                            .setType(Offer.Operation.Type.LAUNCH_GROUP)
                            .setLaunchGroup(
                                Offer.Operation.LaunchGroup.newBuilder()
                                    .setExecutor(executor)
                                    .setTaskGroup(
                                        TaskGroupInfo.newBuilder()
                                            .addTasks(m.task("a", 1).clearCommand())
                                            .addTasks(m.task("b", 1).clearCommand()))))));

    Eventually.await("launched", () -> !m.launcher.launches.isEmpty());
    Launch launch = m.launcher.launches.get(0);
    assertThat(launch.group()).isTrue();
    assertThat(launch.executor()).contains(executor);
    Set<String> devices = new HashSet<>();
    launch.tasks().forEach(t -> devices.addAll(t.deviceIds()));
    assertThat(devices).hasSize(2);
    assertThat(nextUpdate(s, "a").getExecutorId().getValue()).isEqualTo("group-exec");
    // Two tasks of one CPU and their executor's 0.1, out of the 7 offered.
    Eventually.await("recorded", () -> m.book.tasks().size() == 2);
    assertThat(
            new ObjectMapper()
                .readTree(m.master.stateJson())
                .path("agent")
                .path("free_resources")
                .path("cpus")
                .asDouble())
        .isEqualTo(4.9);
  }

  @Test
  void killStopsTheTaskAndFreesItsDevicesAndAnUnknownTaskIsReconciled() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());
    m.call(s, accept(m.nextOffer(s), m.task("t1", 1)));
    nextUpdate(s, "t1");

    m.call(
        s,
        Call.newBuilder()
            .setType(Call.Type.KILL)
            .setKill(Call.Kill.newBuilder().setTaskId(TaskID.newBuilder().setValue("t1"))));
    Eventually.await("killed", () -> m.ledger.current().leases().isEmpty());
    assertThat(
            m.book.task(s.id(), TaskID.newBuilder().setValue("t1").build()).orElseThrow().state())
        .isEqualTo(TaskState.TASK_KILLED);

    m.call(
        s,
        Call.newBuilder()
            .setType(Call.Type.KILL)
            .setKill(Call.Kill.newBuilder().setTaskId(TaskID.newBuilder().setValue("ghost"))));
    TaskStatus ghost = nextUpdate(s, "ghost");
    assertThat(ghost.getState()).isEqualTo(TaskState.TASK_LOST);
    assertThat(ghost.getReason()).isEqualTo(TaskStatus.Reason.REASON_RECONCILIATION);
    assertThat(ghost.hasUuid()).isFalse();
  }

  @Test
  void reconciliationTellsTheLatestStateWithoutAUuid() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());
    m.call(s, accept(m.nextOffer(s), m.task("t1", 1)));
    Eventually.await(
        "running",
        () ->
            m.book.task(s.id(), TaskID.newBuilder().setValue("t1").build()).orElseThrow().state()
                == TaskState.TASK_RUNNING);

    m.call(
        s,
        Call.newBuilder()
            .setType(Call.Type.RECONCILE)
            .setReconcile(Call.Reconcile.getDefaultInstance()));
    TaskStatus implicit =
        s.events()
            .next(
                e ->
                    e.hasUpdate()
                        && e.getUpdate().getStatus().getReason()
                            == TaskStatus.Reason.REASON_RECONCILIATION)
            .getUpdate()
            .getStatus();
    assertThat(implicit.getTaskId().getValue()).isEqualTo("t1");
    assertThat(implicit.getState()).isEqualTo(TaskState.TASK_RUNNING);
    assertThat(implicit.hasUuid()).isFalse();
    assertThat(implicit.getSource()).isEqualTo(TaskStatus.Source.SOURCE_MASTER);

    m.call(
        s,
        Call.newBuilder()
            .setType(Call.Type.RECONCILE)
            .setReconcile(
                Call.Reconcile.newBuilder()
                    .addTasks(
                        Call.Reconcile.Task.newBuilder()
                            .setTaskId(TaskID.newBuilder().setValue("other")))));
    TaskStatus explicit =
        s.events()
            .next(
                e ->
                    e.hasUpdate()
                        && e.getUpdate().getStatus().getTaskId().getValue().equals("other"))
            .getUpdate()
            .getStatus();
    assertThat(explicit.getState()).isEqualTo(TaskState.TASK_LOST);
  }

  @Test
  void messagesGoToTheExecutor() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());
    assertThat(
            m.call(
                s,
                Call.newBuilder()
                    .setType(Call.Type.MESSAGE)
                    .setMessage(
                        Call.Message.newBuilder()
                            .setAgentId(m.agent())
                            .setExecutorId(ExecutorID.newBuilder().setValue("e"))
                            .setData(ByteString.copyFromUtf8("hello")))))
        .isInstanceOf(Reply.Accepted.class);
    assertThat(m.launcher.messages).containsExactly(ByteString.copyFromUtf8("hello"));
  }

  @Test
  void stateShowsTheAgentTheFrameworksAndWhichDevicesEachTaskHolds() throws Exception {
    start();
    Scheduler s = m.subscribe(gpuFramework());
    m.call(s, accept(m.nextOffer(s), m.task("t1", 1)));
    Eventually.await("launched", () -> !m.launcher.launches.isEmpty());
    String device = m.launcher.launches.get(0).tasks().get(0).deviceIds().get(0);

    JsonNode state = new ObjectMapper().readTree(m.master.stateJson());

    assertThat(state.path("agent").path("id").asText()).isEqualTo(m.agent().getValue());
    assertThat(state.path("agent").path("resources").path("gpus").asInt()).isEqualTo(4);
    assertThat(state.path("agent").path("free_resources").path("gpus").asInt()).isEqualTo(3);
    JsonNode task = state.path("frameworks").get(0).path("tasks").get(0);
    assertThat(task.path("id").asText()).isEqualTo("t1");
    assertThat(task.path("devices").get(0).asText()).isEqualTo(device);
  }
}
