package io.acceld.mesos.scheduler;

import static io.acceld.mesos.scheduler.MasterFixture.framework;
import static io.acceld.mesos.scheduler.MasterFixture.gpuFramework;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.scheduler.MasterFixture.Scheduler;
import io.acceld.mesos.tasks.RecordingStream;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.Eventually;
import io.acceld.testing.TestDevices;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SubscriptionTest {
  @TempDir Path root;
  MasterFixture m;

  @BeforeEach
  void start() throws Exception {
    m = new MasterFixture(root, List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0)));
  }

  @AfterEach
  void stop() {
    m.close();
  }

  @Test
  void subscribedThenAHeartbeatAtOnceThenOneEveryInterval() {
    // The second HEARTBEAT is scheduled one interval after the master takes the SUBSCRIBE, so the
    // time since then bounds it from below however late this thread reads the first.
    long start = System.nanoTime();
    Scheduler s = m.subscribe(framework());

    Event subscribed = s.events().all().get(0);
    assertThat(s.id().getValue()).isEqualTo(m.master.masterInfo().getId() + "-0000");
    assertThat(subscribed.getSubscribed().getHeartbeatIntervalSeconds()).isEqualTo(0.15);
    assertThat(subscribed.getSubscribed().getMasterInfo().getVersion()).isEqualTo("1.11.0");
    assertThat(subscribed.getSubscribed().getMasterInfo().getPort()).isEqualTo(5050);
    assertThat(s.events().next().getType()).isEqualTo(Event.Type.HEARTBEAT);
    s.events().next(Event.Type.HEARTBEAT);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(MasterFixture.HEARTBEAT);
    assertThat(s.streamId()).matches("[0-9a-f-]{36}");
  }

  @Test
  void reSubscribingKeepsTheIdGivesANewStreamAndEndsTheOldOne() {
    Scheduler first = m.subscribe(framework().setFailoverTimeout(60));

    Scheduler second = m.subscribe(first.info().toBuilder());

    assertThat(second.id()).isEqualTo(first.id());
    assertThat(second.streamId()).isNotEqualTo(first.streamId());
    assertThat(first.events().next(Event.Type.ERROR).getError().getMessage())
        .isEqualTo("Framework failed over");
    assertThat(first.events().isOpen()).isFalse();
    // The old stream ID no longer works; the new one does.
    Call.Builder teardown = Call.newBuilder().setType(Call.Type.TEARDOWN);
    assertThat(m.call(first, teardown.clone()))
        .isInstanceOf(Reply.Failure.class)
        .extracting(r -> ((Reply.Failure) r).status())
        .isEqualTo(400);
    assertThat(
            m.call(
                second,
                Call.newBuilder()
                    .setType(Call.Type.REVIVE)
                    .setRevive(Call.Revive.getDefaultInstance())))
        .isInstanceOf(Reply.Accepted.class);
  }

  @Test
  void anInvalidRoleIsAStreamWhoseFirstEventIsError() {
    Reply reply =
        m.master.subscribe(
            Call.newBuilder()
                .setType(Call.Type.SUBSCRIBE)
                .setSubscribe(
                    Call.Subscribe.newBuilder()
                        .setFrameworkInfo(
                            framework()
                                .addRoles("/test/test1")
                                .addCapabilities(
                                    io.acceld.proto.mesos.v1.FrameworkInfo.Capability.newBuilder()
                                        .setType(
                                            io.acceld.proto.mesos.v1.FrameworkInfo.Capability.Type
                                                .MULTI_ROLE))))
                .build(),
            Optional.empty());

    assertThat(reply).isInstanceOf(Reply.Stream.class);
    RecordingStream events = new RecordingStream();
    ((Reply.Stream) reply).opened().accept(events);
    Event first = events.next();
    assertThat(first.getType()).isEqualTo(Event.Type.ERROR);
    assertThat(first.getError().getMessage()).contains("/test/test1").contains("slash");
    assertThat(events.isOpen()).isFalse();
  }

  @Test
  void callsAreCheckedInMesossOrder() {
    Scheduler s = m.subscribe(framework().setFailoverTimeout(60));
    Call teardown = Call.newBuilder().setType(Call.Type.TEARDOWN).setFrameworkId(s.id()).build();

    assertThat(
            m.master.handle(
                Call.newBuilder().setType(Call.Type.TEARDOWN).build(),
                Optional.of(s.streamId()),
                Optional.empty()))
        .isEqualTo(
            Reply.failure(
                400, "Failed to validate scheduler::Call: Expecting 'framework_id' to be present"));
    assertThat(
            m.master.handle(
                teardown.toBuilder()
                    .setFrameworkId(FrameworkID.newBuilder().setValue("nope"))
                    .build(),
                Optional.of(s.streamId()),
                Optional.empty()))
        .isEqualTo(Reply.failure(400, "Framework cannot be found"));
    assertThat(m.master.handle(teardown, Optional.empty(), Optional.empty()))
        .isEqualTo(
            Reply.failure(
                400, "All non-subscribe calls should include the 'Mesos-Stream-Id' header"));
    assertThat(
            m.master.handle(
                teardown, Optional.of("0f0f0f0f-0000-4000-8000-000000000000"), Optional.empty()))
        .extracting(r -> ((Reply.Failure) r).status())
        .isEqualTo(400);
    assertThat(
            m.call(
                s,
                Call.newBuilder()
                    .setType(Call.Type.ACKNOWLEDGE)
                    .setAcknowledge(
                        Call.Acknowledge.newBuilder()
                            .setAgentId(m.agent())
                            .setTaskId(io.acceld.proto.mesos.v1.TaskID.newBuilder().setValue("t"))
                            .setUuid(ByteString.copyFromUtf8("bad-uuid")))))
        .isEqualTo(Reply.failure(400, "Failed to validate scheduler::Call: Not a valid UUID"));
    assertThat(m.call(s, Call.newBuilder().setType(Call.Type.UNKNOWN)))
        .extracting(r -> ((Reply.Failure) r).status())
        .isEqualTo(501);
    assertThat(
            m.call(
                s,
                Call.newBuilder()
                    .setType(Call.Type.REQUEST)
                    .setRequest(Call.Request.getDefaultInstance())))
        .isInstanceOf(Reply.Accepted.class);
    assertThat(m.call(s, Call.newBuilder().setType(Call.Type.ACCEPT)))
        .isEqualTo(
            Reply.failure(
                400, "Failed to validate scheduler::Call: Expecting 'accept' to be present"));

    s.events().hangUp();

    // Disconnected within its failover timeout: known, but not subscribed.
    Eventually.await(
        "403",
        () ->
            m.call(s, Call.newBuilder().setType(Call.Type.TEARDOWN))
                .equals(Reply.failure(403, "Framework is not subscribed")));
  }

  @Test
  void afterTheFailoverTimeoutTheFrameworkIsTornDownAndItsDevicesFreed() {
    Scheduler s = m.subscribe(gpuFramework().setFailoverTimeout(0.2));
    Offer offer = m.nextOffer(s);
    m.call(s, MasterFixture.accept(offer, m.task("t1", 1)));
    assertThat(MasterFixture.nextUpdate(s, "t1").getState()).isEqualTo(TaskState.TASK_STARTING);
    assertThat(m.ledger.current().leases()).hasSize(1);

    s.events().hangUp();

    Eventually.await("framework shut down", () -> m.launcher.shutdowns.contains(s.id()));
    Eventually.await("lease released", () -> m.ledger.current().leases().isEmpty());
    assertThat(m.call(s, Call.newBuilder().setType(Call.Type.TEARDOWN)))
        .isEqualTo(Reply.failure(400, "Framework cannot be found"));
    Reply again =
        m.master.subscribe(
            Call.newBuilder()
                .setType(Call.Type.SUBSCRIBE)
                .setFrameworkId(s.id())
                .setSubscribe(Call.Subscribe.newBuilder().setFrameworkInfo(s.info()))
                .build(),
            Optional.empty());
    RecordingStream events = new RecordingStream();
    ((Reply.Stream) again).opened().accept(events);
    assertThat(events.next().getError().getMessage()).isEqualTo("Framework has been removed");
  }

  @Test
  void reSubscribingWithinTheFailoverTimeoutKeepsTasksAndResendsWhatWasNotAcknowledged() {
    Scheduler s = m.subscribe(gpuFramework().setFailoverTimeout(60));
    m.call(s, MasterFixture.accept(m.nextOffer(s), m.task("t1", 1)));
    TaskStatus starting = MasterFixture.nextUpdate(s, "t1");
    s.events().hangUp();

    Scheduler back = m.subscribe(s.info().toBuilder());

    TaskStatus resent = MasterFixture.nextUpdate(back, "t1");
    assertThat(resent.getUuid()).isEqualTo(starting.getUuid());
    assertThat(m.launcher.shutdowns).isEmpty();
    m.acknowledge(back, resent);
    assertThat(MasterFixture.nextUpdate(back, "t1").getState()).isEqualTo(TaskState.TASK_RUNNING);
  }

  @Test
  void teardownShutsTheFrameworkDownAndReleasesItsDevices() {
    Scheduler s = m.subscribe(gpuFramework());
    m.call(s, MasterFixture.accept(m.nextOffer(s), m.task("t1", 2)));
    MasterFixture.nextUpdate(s, "t1");
    assertThat(m.ledger.current().leases()).hasSize(2);

    assertThat(m.call(s, Call.newBuilder().setType(Call.Type.TEARDOWN)))
        .isInstanceOf(Reply.Accepted.class);

    assertThat(m.launcher.shutdowns).containsExactly(s.id());
    Eventually.await("leases released", () -> m.ledger.current().leases().isEmpty());
    assertThat(s.events().isOpen()).isFalse();
  }

  @Test
  void theAgentAndFrameworkNumbersSurviveARestart() throws Exception {
    Scheduler s = m.subscribe(framework());
    String agent = m.agent().getValue();
    m.close();

    m = new MasterFixture(root, List.of(TestDevices.nvidia(0, 0)));

    assertThat(m.agent().getValue()).isEqualTo(agent);
    assertThat(m.subscribe(framework()).id()).isNotEqualTo(s.id());
  }
}
