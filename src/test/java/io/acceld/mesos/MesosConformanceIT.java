package io.acceld.mesos;

import static io.acceld.testing.mesos.MesosCalls.accept;
import static io.acceld.testing.mesos.MesosCalls.acknowledge;
import static io.acceld.testing.mesos.MesosCalls.commandTask;
import static io.acceld.testing.mesos.MesosCalls.framework;
import static io.acceld.testing.mesos.MesosCalls.scalar;
import static io.acceld.testing.mesos.MesosCalls.scalarOf;
import static io.acceld.testing.mesos.MesosCalls.subscribe;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.acceld.agent.AgentDaemon;
import io.acceld.allocation.RuntimeSpecs;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.config.ConfigLoader;
import io.acceld.config.HostPort;
import io.acceld.ledger.DeviceLedger;
import io.acceld.mesos.executor.ContainerSettings;
import io.acceld.mesos.http.Authenticator;
import io.acceld.mesos.http.HttpAccess;
import io.acceld.mesos.http.MesosHttpServer;
import io.acceld.mesos.wire.MediaType;
import io.acceld.mesos.wire.MesosCodec;
import io.acceld.proto.mesos.v1.CommandInfo;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.CgroupLeftovers;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.Eventually;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosExecutorCalls;
import io.acceld.testing.mesos.MesosExecutorClient;
import io.acceld.testing.mesos.MesosResponse;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The 26 acceptance checks of the Mesos reference (mesos-http-api.md §4.2, taken from Mesos's own
 * scheduler and executor HTTP API tests), each in both codecs, against the real bridge: one
 * AgentDaemon on the eight-GPU fixture node next to a kubelet double serves most of them; the
 * checks that need other settings (authentication, a recovery in progress, a short executor
 * heartbeat) get a bridge of their own built by {@link MesosBridge#start} over a fresh ledger.
 *
 * <p>Each test tears its frameworks down, so the next one is offered the whole node.
 */
class MesosConformanceIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration HEARTBEAT = Duration.ofMillis(500);
  private static final String GPU = "nvidia.com/gpu";
  private static final AtomicInteger names = new AtomicInteger();

  @TempDir static Path root;

  private static FixtureNode node;
  private static NvmlDouble nvml;
  private static KubeletDouble kubelet;
  private static AgentDaemon daemon;

  @BeforeAll
  static void startDaemon() throws Exception {
    node = Fixtures.eightGpuNode(root.resolve("node"));
    nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
    Map<String, String> flags =
        DaemonFlags.withMesos(root, node, nvml, kubelet, HEARTBEAT.toMillis() + "ms");
    daemon = AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()));
    kubelet.awaitRegistered(GPU, WAIT);
  }

  @AfterAll
  static void stopDaemon() throws Exception {
    if (daemon != null) {
      daemon.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
  }

  private static String address() {
    return "127.0.0.1:" + daemon.mesos().orElseThrow().port();
  }

  private static MesosSchedulerClient scheduler(MediaType codec) {
    return MesosSchedulerClient.of(address(), codec);
  }

  private static MesosExecutorClient executor(MediaType codec) {
    return MesosExecutorClient.of(address(), codec);
  }

  private static String unique(String prefix) {
    return prefix + "-" + names.incrementAndGet();
  }

  /** A subscribed framework, torn down on close so that the next test is offered everything. */
  private record Framework(
      MesosSchedulerClient client, MesosEventStream<Event> events, FrameworkID id, String stream)
      implements AutoCloseable {
    MesosResponse call(Call call) throws Exception {
      return client.call(call, Map.of("Mesos-Stream-Id", stream));
    }

    Offer nextOffer() {
      return events.awaitEvent(Event.Type.OFFERS, WAIT).getOffers().getOffers(0);
    }

    /** The next update, acknowledged if it asks to be. */
    TaskStatus nextUpdate() throws Exception {
      TaskStatus status = events.awaitEvent(Event.Type.UPDATE, WAIT).getUpdate().getStatus();
      if (status.hasUuid()) {
        assertThat(call(acknowledge(id, status)).status()).isEqualTo(202);
      }
      return status;
    }

    @Override
    public void close() throws Exception {
      call(Call.newBuilder().setFrameworkId(id).setType(Call.Type.TEARDOWN).build());
      events.close();
    }
  }

  private static Framework subscribed(MesosSchedulerClient client, FrameworkInfo info)
      throws Exception {
    MesosEventStream<Event> events = client.subscribe(subscribe(info, Optional.empty()));
    assertThat(events.status()).as(events.errorBody()).isEqualTo(200);
    Event first = events.nextEvent(WAIT);
    assertThat(first.getType()).isEqualTo(Event.Type.SUBSCRIBED);
    return new Framework(
        client, events, first.getSubscribed().getFrameworkId(), events.streamId().orElseThrow());
  }

  private static Call subscribeCall() {
    return subscribe(framework(unique("conformance"), true), Optional.empty());
  }

  /**
   * A framework with a custom executor that never subscribes by itself ({@code sleep}), and one
   * task queued for it: the test speaks for the executor, as Mesos's tests do with a mock one.
   */
  private record LaunchedExecutor(Framework framework, ExecutorID executor, TaskID task) {
    io.acceld.proto.mesos.v1.executor.Call subscribeCall() {
      return MesosExecutorCalls.subscribe(framework.id(), executor);
    }
  }

  private static LaunchedExecutor launchedExecutor(MesosSchedulerClient client) throws Exception {
    Framework fw = subscribed(client, framework(unique("executor"), true));
    Offer offer = fw.nextOffer();
    ExecutorID executor = MesosExecutorCalls.executorId(unique("sleeper"));
    TaskID task = TaskID.newBuilder().setValue(unique("queued")).build();
    TaskInfo info =
        TaskInfo.newBuilder()
            .setName(task.getValue())
            .setTaskId(task)
            .setAgentId(offer.getAgentId())
            .addResources(scalar("cpus", 0.1))
            .setExecutor(
                ExecutorInfo.newBuilder()
                    .setExecutorId(executor)
                    .setCommand(CommandInfo.newBuilder().setShell(true).setValue("exec sleep 60")))
            .build();
    assertThat(fw.call(accept(fw.id(), offer, List.of(info))).status()).isEqualTo(202);
    return new LaunchedExecutor(fw, executor, task);
  }

  /** An executor subscription the launch has made possible: awaited, since spawning is async. */
  private static MesosEventStream<io.acceld.proto.mesos.v1.executor.Event> executorSubscribed(
      MesosExecutorClient client, LaunchedExecutor launched) {
    return executorSubscribed(client, launched, new AtomicLong());
  }

  /** As above; {@code requested} gets the time the accepted SUBSCRIBE was sent. */
  private static MesosEventStream<io.acceld.proto.mesos.v1.executor.Event> executorSubscribed(
      MesosExecutorClient client, LaunchedExecutor launched, AtomicLong requested) {
    AtomicReference<MesosEventStream<io.acceld.proto.mesos.v1.executor.Event>> answer =
        new AtomicReference<>();
    try {
      Eventually.await(
          "the bridge to take " + launched.executor().getValue() + "'s SUBSCRIBE",
          WAIT,
          () -> {
            try {
              requested.set(System.nanoTime());
              answer.set(client.subscribe(launched.subscribeCall()));
              return answer.get().status() == 200;
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + "; last answer "
              + answer.get().status()
              + " "
              + answer.get().errorBody()
              + "; scheduler saw "
              + launched.framework().events().seen(),
          e);
    }
    return answer.get();
  }

  /**
   * A bridge of its own, over a fresh ledger, for the checks that need other settings. It runs
   * beside the shared one, so on a cgroup parent of its own: the shared bridge holds the JVM's.
   */
  private static MesosBridge bridge(
      String name, Optional<Authenticator> auth, UnaryOperator<ContainerSettings> containers)
      throws Exception {
    Path state = root.resolve(name);
    MesosBridge.Options options =
        new MesosBridge.Options(
            new HostPort("127.0.0.1", 0),
            auth,
            false,
            state,
            node.tree().procRoot(),
            "conformance-node",
            HEARTBEAT,
            "cpus:0;mem:0;disk:0",
            true,
            Duration.ofMinutes(1),
            Duration.ofSeconds(10),
            io.acceld.testing.mesos.BridgeOverLedger.rootTasksAllowed(
                CgroupLeftovers.SECOND_PARENT));
    return MesosBridge.start(
        options,
        DeviceLedger.inMemory(Clock.systemUTC()),
        new TopologyAwareChooser(),
        new RuntimeSpecs(Path.of("/dev"), Optional.empty()),
        () -> true,
        Clock.systemUTC(),
        containers);
  }

  private static MediaType other(MediaType codec) {
    return codec == MediaType.JSON ? MediaType.PROTOBUF : MediaType.JSON;
  }

  private static boolean isUuid(String s) {
    try {
      return UUID.fromString(s).toString().equals(s.toLowerCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  // ---- Scheduler endpoint ----

  /** 1 (S NoContentType). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c01_aCallWithoutContentTypeIs400(MediaType codec) throws Exception {
    MesosResponse r =
        scheduler(codec)
            .post(Optional.empty(), MesosCodec.encode(subscribeCall(), codec), Map.of());
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body()).contains("Content-Type");
  }

  /**
   * 2 (S ValidJsonButInvalidProtobuf): a body that parses in the codec but is no Call. For
   * protobuf, a Call whose framework_id lacks its required value.
   */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c02_aWellFormedBodyThatIsNoCallIs400(MediaType codec) throws Exception {
    byte[] body =
        codec == MediaType.JSON
            ? "{\"string\":\"valid_json\"}".getBytes(StandardCharsets.UTF_8)
            : Call.newBuilder()
                .setType(Call.Type.TEARDOWN)
                .setFrameworkId(FrameworkID.newBuilder().buildPartial())
                .buildPartial()
                .toByteArray();
    MesosResponse r = scheduler(codec).post(Optional.of(codec.value()), body, Map.of());
    assertThat(r.status()).as(r.body()).isEqualTo(400);
  }

  /** 3 (S MalformedContent). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c03_malformedContentIs400(MediaType codec) throws Exception {
    MesosResponse r =
        scheduler(codec)
            .post(
                Optional.of(codec.value()),
                "MALFORMED_CONTENT".getBytes(StandardCharsets.UTF_8),
                Map.of());
    assertThat(r.status()).as(r.body()).isEqualTo(400);
  }

  /** 4 (S UnsupportedContentMediaType). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c04_anUnknownContentTypeIs415(MediaType codec) throws Exception {
    MesosResponse r =
        scheduler(codec)
            .post(
                Optional.of("application/unknown-media-type"),
                MesosCodec.encode(subscribeCall(), codec),
                Map.of());
    assertThat(r.status()).as(r.body()).isEqualTo(415);
  }

  /** 5 (S Subscribe). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c05_subscribeStreamsSubscribedThenHeartbeatsEveryInterval(MediaType codec) throws Exception {
    // The master schedules the second HEARTBEAT one interval after it takes the SUBSCRIBE, so
    // the time since the request went out bounds it from below however late the client reads.
    long requested = System.nanoTime();
    MesosEventStream<Event> events = scheduler(codec).subscribe(subscribeCall());
    FrameworkID id = null;
    try {
      assertThat(events.status()).isEqualTo(200);
      assertThat(events.header("Transfer-Encoding")).hasValue("chunked");
      assertThat(events.header("Content-Length")).isEmpty();
      assertThat(events.header("Content-Type")).hasValue(codec.value());
      assertThat(events.streamId()).hasValueSatisfying(s -> assertThat(isUuid(s)).isTrue());
      Event subscribed = events.nextEvent(WAIT);
      assertThat(subscribed.getType()).isEqualTo(Event.Type.SUBSCRIBED);
      id = subscribed.getSubscribed().getFrameworkId();
      assertThat(id.getValue()).isNotEmpty();
      assertThat(subscribed.getSubscribed().getHeartbeatIntervalSeconds())
          .isEqualTo(HEARTBEAT.toMillis() / 1000.0);
      assertThat(events.nextEvent(WAIT).getType()).isEqualTo(Event.Type.HEARTBEAT);
      events.awaitEvent(Event.Type.HEARTBEAT, WAIT);
      assertThat(Duration.ofNanos(System.nanoTime() - requested)).isGreaterThanOrEqualTo(HEARTBEAT);
    } finally {
      if (id != null) {
        new Framework(scheduler(codec), events, id, events.streamId().orElseThrow()).close();
      }
    }
  }

  /** 6 (S RejectFrameworkWithInvalidRole). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  @SuppressWarnings("deprecation")
  void c06_anInvalidRoleIsAnErrorEventOnA200Stream(MediaType codec) throws Exception {
    FrameworkInfo info =
        framework(unique("bad-role"), true).toBuilder().setRole("/test/test1").build();
    try (MesosEventStream<Event> events =
        scheduler(codec).subscribe(subscribe(info, Optional.empty()))) {
      assertThat(events.status()).isEqualTo(200);
      assertThat(events.header("Transfer-Encoding")).hasValue("chunked");
      Event first = events.nextEvent(WAIT);
      assertThat(first.getType()).isEqualTo(Event.Type.ERROR);
      assertThat(first.getError().getMessage()).contains("/test/test1");
    }
  }

  /** 7 (S SubscribeWithStreamId). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c07_aSubscribeCarryingAStreamIdIs400(MediaType codec) throws Exception {
    try (MesosEventStream<Event> events =
        scheduler(codec)
            .subscribe(subscribeCall(), Map.of("Mesos-Stream-Id", UUID.randomUUID().toString()))) {
      assertThat(events.status()).isEqualTo(400);
    }
  }

  /** 8 (S SubscribedOnRetry). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c08_aResubscribeWithTheIdKeepsTheId(MediaType codec) throws Exception {
    FrameworkInfo info =
        framework(unique("retry"), true).toBuilder().setFailoverTimeout(60).build();
    Framework first = subscribed(scheduler(codec), info);
    first.events().close();
    try (MesosEventStream<Event> again =
        scheduler(codec).subscribe(subscribe(info, Optional.of(first.id())))) {
      assertThat(again.status()).isEqualTo(200);
      Event subscribed = again.nextEvent(WAIT);
      assertThat(subscribed.getType()).isEqualTo(Event.Type.SUBSCRIBED);
      assertThat(subscribed.getSubscribed().getFrameworkId()).isEqualTo(first.id());
      assertThat(again.nextEvent(WAIT).getType()).isEqualTo(Event.Type.HEARTBEAT);
      new Framework(first.client(), again, first.id(), again.streamId().orElseThrow()).close();
    }
  }

  /** 9 (S NotAcceptable). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c09_anUnacceptableAcceptIs406(MediaType codec) throws Exception {
    try (MesosEventStream<Event> events =
        scheduler(codec).subscribe(subscribeCall(), Optional.of("foo"), Map.of())) {
      assertThat(events.status()).isEqualTo(406);
    }
  }

  /** 10 (S NoAcceptHeader): in either request encoding the stream is JSON. */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c10_noAcceptMeansJson(MediaType codec) throws Exception {
    assertStreamIsJson(codec, Optional.empty());
  }

  /** 11 (S DefaultAccept). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c11_anyAcceptMeansJson(MediaType codec) throws Exception {
    assertStreamIsJson(codec, Optional.of("*/*"));
  }

  private static void assertStreamIsJson(MediaType codec, Optional<String> accept)
      throws Exception {
    MesosEventStream<Event> events = scheduler(codec).subscribe(subscribeCall(), accept, Map.of());
    assertThat(events.status()).isEqualTo(200);
    assertThat(events.header("Content-Type")).hasValue(MediaType.JSON.value());
    Event subscribed = events.nextEvent(WAIT);
    assertThat(subscribed.getType()).isEqualTo(Event.Type.SUBSCRIBED);
    new Framework(
            scheduler(codec),
            events,
            subscribed.getSubscribed().getFrameworkId(),
            events.streamId().orElseThrow())
        .close();
  }

  /** 12 (S/E GetRequest). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c12_getIs405AllowingPost(MediaType codec) throws Exception {
    for (String path : List.of("/api/v1/scheduler", "/api/v1/executor")) {
      MesosResponse r = scheduler(codec).request("GET", path);
      assertThat(r.status()).as(path).isEqualTo(405);
      assertThat(r.header("Allow")).as(path).hasValue("POST");
    }
  }

  /** 13 (S TeardownWithoutStreamId). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c13_teardownWithoutStreamIdIs400(MediaType codec) throws Exception {
    try (Framework fw = subscribed(scheduler(codec), framework(unique("no-stream"), true))) {
      MesosResponse r =
          fw.client()
              .call(Call.newBuilder().setFrameworkId(fw.id()).setType(Call.Type.TEARDOWN).build());
      assertThat(r.status()).as(r.body()).isEqualTo(400);
    }
  }

  /** 14 (S TeardownWrongStreamId). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c14_aResubscribeGetsANewStreamIdAndTheOldOneIs400(MediaType codec) throws Exception {
    FrameworkInfo info = framework(unique("new-stream"), true);
    Framework first = subscribed(scheduler(codec), info);
    try (MesosEventStream<Event> again =
        scheduler(codec).subscribe(subscribe(info, Optional.of(first.id())))) {
      assertThat(again.status()).isEqualTo(200);
      assertThat(again.nextEvent(WAIT).getType()).isEqualTo(Event.Type.SUBSCRIBED);
      String newStream = again.streamId().orElseThrow();
      assertThat(newStream).isNotEqualTo(first.stream());
      Call teardown =
          Call.newBuilder().setFrameworkId(first.id()).setType(Call.Type.TEARDOWN).build();
      MesosResponse old = first.call(teardown);
      assertThat(old.status()).as(old.body()).isEqualTo(400);
      assertThat(first.client().call(teardown, Map.of("Mesos-Stream-Id", newStream)).status())
          .isEqualTo(202);
    } finally {
      first.events().close();
    }
  }

  /** 15 (S MalformedUUID). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c15_anAcknowledgeWithABadUuidIs400(MediaType codec) throws Exception {
    try (Framework fw = subscribed(scheduler(codec), framework(unique("bad-uuid"), true))) {
      Offer offer = fw.nextOffer();
      Call ack =
          Call.newBuilder()
              .setFrameworkId(fw.id())
              .setType(Call.Type.ACKNOWLEDGE)
              .setAcknowledge(
                  Call.Acknowledge.newBuilder()
                      .setAgentId(offer.getAgentId())
                      .setTaskId(TaskID.newBuilder().setValue("t"))
                      .setUuid(ByteString.copyFromUtf8("bad-uuid")))
              .build();
      MesosResponse r = fw.call(ack);
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.body()).isEqualTo("Failed to validate scheduler::Call: Not a valid UUID");
    }
  }

  /** 16 (S AuthenticationRequired), on a bridge started with basic authentication. */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c16_withAuthenticationAnEmptyPostIs401(MediaType codec) throws Exception {
    Path credentials = root.resolve("credentials-" + codec.name());
    Files.writeString(credentials, "alice:secret\n");
    Files.setPosixFilePermissions(credentials, PosixFilePermissions.fromString("rw-------"));
    try (MesosBridge bridge =
        bridge(
            "auth-" + codec.name(),
            Optional.of(Authenticator.load(Authenticator.Scheme.BASIC, credentials)),
            UnaryOperator.identity())) {
      MesosSchedulerClient client = MesosSchedulerClient.of("127.0.0.1:" + bridge.port(), codec);
      MesosResponse r = client.post(Optional.empty(), new byte[0], Map.of());
      assertThat(r.status()).isEqualTo(401);
      assertThat(r.header("WWW-Authenticate")).isPresent();
      String basic =
          "Basic "
              + Base64.getEncoder().encodeToString("alice:secret".getBytes(StandardCharsets.UTF_8));
      try (MesosEventStream<Event> events =
          client.withAuthorization(basic).subscribe(subscribeCall())) {
        assertThat(events.status()).isEqualTo(200);
        assertThat(events.nextEvent(WAIT).getType()).isEqualTo(Event.Type.SUBSCRIBED);
      }
    }
  }

  // ---- Executor endpoint ----

  /** 17 (E NoContentType, ValidJsonButInvalidProtobuf, MalformedContent, UnsupportedContent...). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c17_executorTransportErrors(MediaType codec) throws Exception {
    MesosExecutorClient client = executor(codec);
    byte[] valid =
        MesosCodec.encode(
            MesosExecutorCalls.subscribe(
                MesosExecutorCalls.frameworkId("fw"), MesosExecutorCalls.executorId("ex")),
            codec);
    assertThat(client.post(Optional.empty(), valid, Map.of()).status()).isEqualTo(400);
    byte[] noCall =
        codec == MediaType.JSON
            ? "{\"string\":\"valid_json\"}".getBytes(StandardCharsets.UTF_8)
            : io.acceld.proto.mesos.v1.executor.Call.newBuilder()
                .setType(io.acceld.proto.mesos.v1.executor.Call.Type.SUBSCRIBE)
                .buildPartial()
                .toByteArray();
    assertThat(client.post(Optional.of(codec.value()), noCall, Map.of()).status()).isEqualTo(400);
    assertThat(
            client
                .post(
                    Optional.of(codec.value()),
                    "MALFORMED_CONTENT".getBytes(StandardCharsets.UTF_8),
                    Map.of())
                .status())
        .isEqualTo(400);
    assertThat(client.post(Optional.of("application/unknown-media-type"), valid, Map.of()).status())
        .isEqualTo(415);
  }

  /** 18 (E MessageFromUnknownFramework). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c18_aMessageFromAnUnknownFrameworkIs400(MediaType codec) throws Exception {
    MesosResponse r =
        executor(codec)
            .call(
                MesosExecutorCalls.message(
                    MesosExecutorCalls.frameworkId("no-such-framework"),
                    MesosExecutorCalls.executorId("ex"),
                    ByteString.copyFromUtf8("hello")));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body()).isEqualTo("Framework cannot be found");
  }

  /** 19 (E DefaultAccept, NoAcceptHeader, NotAcceptable). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c19_executorSubscribeNegotiatesJsonFirst(MediaType codec) throws Exception {
    LaunchedExecutor launched = launchedExecutor(scheduler(codec));
    try (Framework fw = launched.framework()) {
      MesosExecutorClient client = executor(codec);
      executorSubscribed(client, launched).close();
      for (Optional<String> accept : List.of(Optional.<String>empty(), Optional.of("*/*"))) {
        try (var events = client.subscribe(launched.subscribeCall(), accept, Map.of())) {
          assertThat(events.status()).as("Accept %s", accept).isEqualTo(200);
          assertThat(events.header("Content-Type")).hasValue(MediaType.JSON.value());
          assertThat(events.nextEvent(WAIT).getType())
              .isEqualTo(io.acceld.proto.mesos.v1.executor.Event.Type.SUBSCRIBED);
        }
      }
      try (var events = client.subscribe(launched.subscribeCall(), Optional.of("foo"), Map.of())) {
        assertThat(events.status()).isEqualTo(406);
      }
    }
  }

  /** 20 (E ValidProtobufInvalidCall). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c20_aCallWithoutItsMessageIs400(MediaType codec) throws Exception {
    LaunchedExecutor launched = launchedExecutor(scheduler(codec));
    try (Framework fw = launched.framework()) {
      MesosExecutorClient client = executor(codec);
      executorSubscribed(client, launched).close();
      for (var type :
          List.of(
              io.acceld.proto.mesos.v1.executor.Call.Type.SUBSCRIBE,
              io.acceld.proto.mesos.v1.executor.Call.Type.UPDATE,
              io.acceld.proto.mesos.v1.executor.Call.Type.MESSAGE)) {
        MesosResponse r = client.call(MesosExecutorCalls.bare(fw.id(), launched.executor(), type));
        assertThat(r.status()).as("%s: %s", type, r.body()).isEqualTo(400);
        assertThat(r.body()).as("%s", type).containsIgnoringCase(type.name());
      }
    }
  }

  /** 21 (E StatusUpdateCallFailedValidation), from a subscribed executor. */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c21_invalidUpdatesAre400(MediaType codec) throws Exception {
    LaunchedExecutor launched = launchedExecutor(scheduler(codec));
    try (Framework fw = launched.framework();
        var stream = executorSubscribed(executor(codec), launched)) {
      MesosExecutorClient client = executor(codec);
      TaskStatus valid =
          MesosExecutorCalls.status(launched.executor(), launched.task(), TaskState.TASK_RUNNING);
      Map<String, TaskStatus> invalid =
          Map.of(
              "executor_id differs",
              valid.toBuilder().setExecutorId(MesosExecutorCalls.executorId("other")).build(),
              "uuid dummy_uuid",
              valid.toBuilder().setUuid(ByteString.copyFromUtf8("dummy_uuid")).build(),
              "TASK_STAGING",
              valid.toBuilder().setState(TaskState.TASK_STAGING).build(),
              "SOURCE_MASTER",
              valid.toBuilder().setSource(TaskStatus.Source.SOURCE_MASTER).build());
      invalid.forEach(
          (what, status) -> {
            try {
              MesosResponse r =
                  client.call(MesosExecutorCalls.update(fw.id(), launched.executor(), status));
              assertThat(r.status()).as("%s: %s", what, r.body()).isEqualTo(400);
            } catch (Exception e) {
              throw new AssertionError(what, e);
            }
          });
      // The same update, valid, is taken: the 400s were for what was wrong.
      assertThat(
              client.call(MesosExecutorCalls.update(fw.id(), launched.executor(), valid)).status())
          .isEqualTo(202);
      assertThat(fw.nextUpdate().getState()).isEqualTo(TaskState.TASK_RUNNING);
    }
  }

  /** 22 (E SubscribeBeforeContainerizerRecovery), against the bridge's real Recovering wrapper. */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c22_subscribeWhileRecoveringIs503(MediaType codec) throws Exception {
    Recovering recovering = new Recovering();
    try (MesosHttpServer server =
        MesosHttpServer.start(
            new HostPort("127.0.0.1", 0),
            HttpAccess.loopbackOnly(),
            recovering,
            recovering,
            recovering::stateJson)) {
      String at = "127.0.0.1:" + server.port();
      try (var events =
          MesosExecutorClient.of(at, codec)
              .subscribe(
                  MesosExecutorCalls.subscribe(
                      MesosExecutorCalls.frameworkId("fw"), MesosExecutorCalls.executorId("ex")))) {
        assertThat(events.status()).isEqualTo(503);
        assertThat(events.errorBody()).isEqualTo("Agent has not finished recovery");
      }
      try (var events = MesosSchedulerClient.of(at, codec).subscribe(subscribeCall())) {
        assertThat(events.status()).isEqualTo(503);
      }
    }
  }

  /**
   * 23 (E Subscribe, HeartbeatEvents) on a bridge whose executor heartbeat is short: SUBSCRIBED
   * naming the executor and its container, the queued task as LAUNCH, no HEARTBEAT before the
   * interval and one after it. The shared bridge, with Mesos's 30 minutes, sends none meanwhile.
   */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c23_executorSubscribeGivesSubscribedLaunchThenHeartbeats(MediaType codec) throws Exception {
    Duration interval = Duration.ofMillis(1500);
    try (MesosBridge bridge =
        bridge(
            "heartbeat-" + codec.name(),
            Optional.empty(),
            s -> s.withExecutorHeartbeat(interval))) {
      String at = "127.0.0.1:" + bridge.port();
      LaunchedExecutor launched = launchedExecutor(MesosSchedulerClient.of(at, codec));
      // The first HEARTBEAT is scheduled one interval after the bridge takes the SUBSCRIBE, so
      // the time since the request went out bounds it from below however late the client reads.
      AtomicLong requested = new AtomicLong();
      try (Framework fw = launched.framework();
          var events = executorSubscribed(MesosExecutorClient.of(at, codec), launched, requested)) {
        assertThat(events.header("Transfer-Encoding")).hasValue("chunked");
        assertThat(events.header("Content-Type")).hasValue(codec.value());
        var subscribed = events.nextEvent(WAIT);
        assertThat(subscribed.getType())
            .isEqualTo(io.acceld.proto.mesos.v1.executor.Event.Type.SUBSCRIBED);
        assertThat(subscribed.getSubscribed().getExecutorInfo().getExecutorId())
            .isEqualTo(launched.executor());
        assertThat(subscribed.getSubscribed().hasContainerId()).isTrue();
        var launch = events.nextEvent(WAIT);
        assertThat(launch.getType()).isEqualTo(io.acceld.proto.mesos.v1.executor.Event.Type.LAUNCH);
        assertThat(launch.getLaunch().getTask().getTaskId()).isEqualTo(launched.task());
        var heartbeat = events.nextEvent(WAIT);
        assertThat(heartbeat.getType())
            .isEqualTo(io.acceld.proto.mesos.v1.executor.Event.Type.HEARTBEAT);
        assertThat(Duration.ofNanos(System.nanoTime() - requested.get()))
            .isGreaterThanOrEqualTo(interval);
      }
    }
  }

  /** 24 (E HeartbeatCalls): 202 even with ids nobody knows. */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c24_heartbeatCallsAre202WithDummyIds(MediaType codec) throws Exception {
    MesosResponse r =
        executor(codec)
            .call(
                MesosExecutorCalls.heartbeat(
                    MesosExecutorCalls.frameworkId("dummy-framework"),
                    MesosExecutorCalls.executorId("dummy-executor")));
    assertThat(r.status()).as(r.body()).isEqualTo(202);
  }

  // ---- GPUs ----

  /** 25 (FractionalResources). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c25_aFractionalGpuIsTaskErrorTaskInvalid(MediaType codec) throws Exception {
    try (Framework fw = subscribed(scheduler(codec), framework(unique("fraction"), true))) {
      Offer offer = fw.nextOffer();
      assertThat(scalarOf(offer, "gpus")).isEqualTo(8.0);
      TaskInfo task =
          commandTask(
              "fractional",
              offer.getAgentId(),
              "exit 0",
              List.of(scalar("cpus", 0.1), scalar("gpus", 0.1)));
      assertThat(fw.call(accept(fw.id(), offer, List.of(task))).status()).isEqualTo(202);
      TaskStatus status = fw.nextUpdate();
      assertThat(status.getState()).isEqualTo(TaskState.TASK_ERROR);
      assertThat(status.getReason()).isEqualTo(TaskStatus.Reason.REASON_TASK_INVALID);
      assertThat(status.getMessage()).contains("The 'gpus' resource must be an unsigned integer");
      assertThat(scalarOf(fw.nextOffer(), "gpus")).isEqualTo(8.0);
    }
  }

  /** 26 (allocator GPU_RESOURCES rule). */
  @ParameterizedTest
  @EnumSource(MediaType.class)
  void c26_noGpuResourcesMeansNoOffersUntilUpdateFrameworkAddsIt(MediaType codec) throws Exception {
    FrameworkInfo plain = framework(unique("no-gpus"), false);
    try (Framework fw = subscribed(scheduler(codec), plain)) {
      for (int i = 0; i < 3; i++) {
        fw.events().awaitEvent(Event.Type.HEARTBEAT, WAIT);
      }
      assertThat(fw.events().seen()).noneMatch(e -> e.getType() == Event.Type.OFFERS);
      FrameworkInfo withGpus = framework(plain.getName(), true).toBuilder().setId(fw.id()).build();
      assertThat(fw.call(io.acceld.testing.mesos.MesosCalls.updateFramework(withGpus)).status())
          .isEqualTo(200);
      assertThat(scalarOf(fw.nextOffer(), "gpus")).isEqualTo(8.0);
    }
  }
}
