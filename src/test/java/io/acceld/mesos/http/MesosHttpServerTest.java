package io.acceld.mesos.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.acceld.config.HostPort;
import io.acceld.mesos.http.RecordingEndpoints.RecordingExecutor;
import io.acceld.mesos.http.RecordingEndpoints.RecordingScheduler;
import io.acceld.mesos.wire.MediaType;
import io.acceld.mesos.wire.MesosCodec;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosExecutorClient;
import io.acceld.testing.mesos.MesosResponse;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The transport-level checks of Mesos's own tests (reference §4.2: 1-4, 7, 9-12, 17, 19, 20, 22,
 * 24; 16 is in {@link MesosHttpAuthTest}), each in both codecs, against small in-test endpoints.
 */
class MesosHttpServerTest {
  static final Duration WAIT = Duration.ofSeconds(10);

  private final RecordingScheduler scheduler = new RecordingScheduler();
  private final RecordingExecutor executor = new RecordingExecutor();
  private MesosHttpServer server;

  @BeforeEach
  void start() throws Exception {
    server =
        MesosHttpServer.start(
            new HostPort("127.0.0.1", 0),
            HttpAccess.loopbackOnly(),
            scheduler,
            executor,
            () -> "{\"frameworks\":[]}",
            new MesosHttpLimits(64 * 1024, 4, 8, 4));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String hostPort() {
    return "127.0.0.1:" + server.port();
  }

  private MesosSchedulerClient scheduler(MediaType codec) {
    return MesosSchedulerClient.of(hostPort(), codec);
  }

  private MesosExecutorClient executor(MediaType codec) {
    return MesosExecutorClient.of(hostPort(), codec);
  }

  static Call subscribeCall() {
    return Call.newBuilder()
        .setType(Call.Type.SUBSCRIBE)
        .setSubscribe(
            Call.Subscribe.newBuilder()
                .setFrameworkInfo(FrameworkInfo.newBuilder().setUser("u").setName("n")))
        .build();
  }

  static Call teardownCall() {
    return Call.newBuilder()
        .setType(Call.Type.TEARDOWN)
        .setFrameworkId(FrameworkID.newBuilder().setValue("fw-1"))
        .build();
  }

  static io.acceld.proto.mesos.v1.executor.Call executorCall(
      io.acceld.proto.mesos.v1.executor.Call.Type type) {
    return io.acceld.proto.mesos.v1.executor.Call.newBuilder()
        .setFrameworkId(FrameworkID.newBuilder().setValue("fw-1"))
        .setExecutorId(RecordingExecutor.id("ex-1"))
        .setType(type)
        .build();
  }

  static io.acceld.proto.mesos.v1.executor.Call executorSubscribe() {
    return executorCall(io.acceld.proto.mesos.v1.executor.Call.Type.SUBSCRIBE).toBuilder()
        .setSubscribe(io.acceld.proto.mesos.v1.executor.Call.Subscribe.getDefaultInstance())
        .build();
  }

  // ---- 1-4, 17: what the body and its Content-Type must be ----

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void noContentTypeIs400(MediaType codec) throws Exception {
    MesosResponse answer =
        scheduler(codec)
            .post(Optional.empty(), MesosCodec.encode(subscribeCall(), codec), Map.of());
    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.body()).isEqualTo("Expecting 'Content-Type' to be present");
    MesosResponse executorAnswer =
        executor(codec)
            .post(Optional.empty(), MesosCodec.encode(executorSubscribe(), codec), Map.of());
    assertThat(executorAnswer.status()).isEqualTo(400);
    assertThat(scheduler.calls).isEmpty();
    assertThat(executor.calls).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void validJsonButInvalidCallIs400(MediaType codec) throws Exception {
    byte[] body = "{\"string\" : \"valid_json\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(scheduler(codec).post(Optional.of(codec.value()), body, Map.of()).status())
        .isEqualTo(400);
    MesosResponse executorAnswer = executor(codec).post(Optional.of(codec.value()), body, Map.of());
    assertThat(executorAnswer.status()).isEqualTo(400);
    if (codec == MediaType.JSON) {
      assertThat(executorAnswer.body())
          .startsWith("Failed to convert JSON into Call protobuf: Missing required fields");
    } else {
      assertThat(executorAnswer.body()).isEqualTo("Failed to parse body into Call protobuf");
    }
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void malformedContentIs400(MediaType codec) throws Exception {
    byte[] body = "MALFORMED_CONTENT".getBytes(StandardCharsets.US_ASCII);
    MesosResponse answer = scheduler(codec).post(Optional.of(codec.value()), body, Map.of());
    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.body())
        .startsWith(
            codec == MediaType.JSON
                ? "Failed to parse body into JSON: "
                : "Failed to parse body into Call protobuf");
    assertThat(executor(codec).post(Optional.of(codec.value()), body, Map.of()).status())
        .isEqualTo(400);
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void unsupportedContentTypeIs415(MediaType codec) throws Exception {
    byte[] body = MesosCodec.encode(subscribeCall(), codec);
    assertThat(
            scheduler(codec)
                .post(Optional.of("application/unknown-media-type"), body, Map.of())
                .status())
        .isEqualTo(415);
    // Exact and case-sensitive, as in Mesos.
    assertThat(
            scheduler(codec)
                .post(Optional.of(codec.value() + "; charset=utf-8"), body, Map.of())
                .status())
        .isEqualTo(415);
    assertThat(
            executor(codec)
                .post(
                    Optional.of("application/unknown-media-type"),
                    MesosCodec.encode(executorSubscribe(), codec),
                    Map.of())
                .status())
        .isEqualTo(415);
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void oversizedBodyIs413WithoutReachingTheEndpoint(MediaType codec) throws Exception {
    byte[] body = new byte[100 * 1024];
    // The server leaves the unread body behind and closes the connection, so the answer says
    // so: a client that pooled the connection would send its next call into a closed socket.
    // Several rounds on one client, because that failure depends on who notices the close first.
    MesosSchedulerClient client = scheduler(codec);
    for (int round = 0; round < 20; round++) {
      MesosResponse refused = client.post(Optional.of(codec.value()), body, Map.of());
      assertThat(refused.status()).isEqualTo(413);
      assertThat(refused.header("Connection")).contains("close");
      assertThat(scheduler.calls).isEmpty();
      // ...and the server goes on serving, the same client included.
      assertThat(client.call(teardownCall(), Map.of("Mesos-Stream-Id", "s")).status())
          .isEqualTo(202);
      scheduler.calls.clear();
    }
  }

  // ---- 5 (transport part), 7, 9, 10, 11: subscriptions ----

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void subscribeStreamsInTheAcceptedCodecWithAStreamId(MediaType codec) throws Exception {
    try (MesosEventStream<Event> stream = scheduler(codec).subscribe(subscribeCall())) {
      assertThat(stream.status()).isEqualTo(200);
      assertThat(stream.header("Content-Type")).contains(codec.value());
      assertThat(stream.header("Transfer-Encoding")).contains("chunked");
      assertThat(stream.header("Content-Length")).isEmpty();
      assertThat(stream.streamId()).isPresent();
      Event first = stream.nextEvent(WAIT);
      assertThat(first.getType()).isEqualTo(Event.Type.SUBSCRIBED);
      assertThat(first.getSubscribed().getFrameworkId().getValue()).isEqualTo("fw-1");
      assertThat(first.getSubscribed().getMasterInfo().getHostname()).isEqualTo("gpü-node");
      assertThat(stream.nextEvent(WAIT).getType()).isEqualTo(Event.Type.HEARTBEAT);
      // Later events go out as they are sent, large ones too (the JDK server splits a record
      // over 4 KiB into several chunks; RecordIO framing keeps it whole).
      EventStream open = RecordingEndpoints.take(scheduler.streams);
      Event large =
          Event.newBuilder()
              .setType(Event.Type.MESSAGE)
              .setMessage(
                  Event.Message.newBuilder()
                      .setAgentId(io.acceld.proto.mesos.v1.AgentID.newBuilder().setValue("a"))
                      .setExecutorId(RecordingExecutor.id("e"))
                      .setData(ByteString.copyFrom(new byte[100_000])))
              .build();
      open.send(large);
      open.send(Event.newBuilder().setType(Event.Type.HEARTBEAT).build());
      assertThat(stream.nextEvent(WAIT)).isEqualTo(large);
      assertThat(stream.nextEvent(WAIT).getType()).isEqualTo(Event.Type.HEARTBEAT);
    }
    assertThat(scheduler.calls).hasSize(1);
    assertThat(scheduler.calls.get(0).getSubscribe().getFrameworkInfo().getName()).isEqualTo("n");
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void subscribeWithAStreamIdIs400(MediaType codec) throws Exception {
    try (MesosEventStream<Event> stream =
        scheduler(codec).subscribe(subscribeCall(), Map.of("Mesos-Stream-Id", "abc"))) {
      assertThat(stream.status()).isEqualTo(400);
      assertThat(stream.errorBody())
          .isEqualTo("Subscribe calls should not include the 'Mesos-Stream-Id' header");
    }
    assertThat(scheduler.calls).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void subscribeAcceptingNeitherCodecIs406(MediaType codec) throws Exception {
    try (MesosEventStream<Event> stream =
        scheduler(codec).subscribe(subscribeCall(), Map.of("Accept", "foo"))) {
      assertThat(stream.status()).isEqualTo(406);
    }
    try (MesosEventStream<io.acceld.proto.mesos.v1.executor.Event> stream =
        executor(codec).subscribe(executorSubscribe(), Map.of("Accept", "foo"))) {
      assertThat(stream.status()).isEqualTo(406);
    }
    assertThat(scheduler.calls).isEmpty();
    assertThat(executor.calls).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void subscribeWithoutAcceptOrWithAnyIsJson(MediaType codec) throws Exception {
    // The HttpClient sends no Accept unless told; a blank one stands for none here.
    for (String accept : new String[] {"*/*", "application/*"}) {
      try (MesosEventStream<Event> stream =
          scheduler(codec).subscribe(subscribeCall(), Map.of("Accept", accept))) {
        assertThat(stream.header("Content-Type")).contains("application/json");
        assertThat(stream.nextEvent(WAIT).getType()).isEqualTo(Event.Type.SUBSCRIBED);
      }
      try (MesosEventStream<io.acceld.proto.mesos.v1.executor.Event> stream =
          executor(codec).subscribe(executorSubscribe(), Map.of("Accept", accept))) {
        assertThat(stream.header("Content-Type")).contains("application/json");
        assertThat(stream.header("Mesos-Stream-Id")).isEmpty();
        assertThat(stream.nextEvent(WAIT).getType())
            .isEqualTo(io.acceld.proto.mesos.v1.executor.Event.Type.SUBSCRIBED);
      }
    }
    RawHttp.Response raw = RawHttp.subscribeWithoutAccept(server.port(), codec, subscribeCall());
    assertThat(raw.status()).isEqualTo(200);
    assertThat(raw.header("Content-Type")).contains("application/json");
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void subscribeInUnknownTypeOrWithoutTypeIsRefused(MediaType codec) throws Exception {
    MesosResponse noType =
        scheduler(codec)
            .call(Call.newBuilder().setFrameworkId(teardownCall().getFrameworkId()).build());
    assertThat(noType.status()).isEqualTo(400);
    assertThat(noType.body()).isEqualTo("Expecting 'type' to be present");
    MesosResponse unknown =
        scheduler(codec).call(Call.newBuilder().setType(Call.Type.UNKNOWN).build());
    assertThat(unknown.status()).isEqualTo(501);
    MesosResponse noSubscribe =
        scheduler(codec).call(Call.newBuilder().setType(Call.Type.SUBSCRIBE).build());
    assertThat(noSubscribe.status()).isEqualTo(400);
    assertThat(noSubscribe.body()).isEqualTo("Expecting 'subscribe' to be present");
    assertThat(scheduler.calls).isEmpty();
  }

  // ---- 12: methods ----

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void getOnTheCallEndpointsIs405AllowingPost(MediaType codec) throws Exception {
    for (String path :
        new String[] {
          "/api/v1/scheduler",
          "/master/api/v1/scheduler",
          "/api/v1/executor",
          "/slave(1)/api/v1/executor"
        }) {
      MesosResponse answer = scheduler(codec).request("GET", path);
      assertThat(answer.status()).as(path).isEqualTo(405);
      assertThat(answer.header("Allow")).as(path).contains("POST");
    }
  }

  @Test
  void headAndOtherMethodsAre405WithoutAWarning() throws Exception {
    try (LogCapture ours = LogCapture.of(MesosHttpServer.class);
        JdkServerLog jdk = JdkServerLog.capture()) {
      for (String method : new String[] {"HEAD", "PUT", "DELETE", "OPTIONS"}) {
        MesosResponse answer = scheduler(MediaType.JSON).request(method, "/api/v1/scheduler");
        assertThat(answer.status()).as(method).isEqualTo(405);
      }
      assertThat(scheduler(MediaType.JSON).request("HEAD", "/version").status()).isEqualTo(200);
      assertThat(ours.warnings()).isEmpty();
      assertThat(jdk.warnings()).isEmpty();
    }
  }

  // ---- answers: exactly what the endpoint said ----

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void repliesMapToExactStatuses(MediaType codec) throws Exception {
    MesosResponse accepted =
        scheduler(codec).call(teardownCall(), Map.of("Mesos-Stream-Id", "stream-7"));
    assertThat(accepted.status()).isEqualTo(202);
    assertThat(accepted.body()).isEmpty();
    assertThat(scheduler.streamIds).containsExactly(Optional.of("stream-7"));
    assertThat(scheduler.principals).containsExactly(Optional.empty());

    scheduler.reply = Reply.failure(403, "Framework is not subscribed");
    MesosResponse refused = scheduler(codec).call(teardownCall());
    assertThat(refused.status()).isEqualTo(403);
    assertThat(refused.body()).isEqualTo("Framework is not subscribed");
    assertThat(scheduler.streamIds).last().isEqualTo(Optional.empty());

    // A reason naming what a client sent is cut to 1 KiB: the client does not size the answer.
    scheduler.reply = Reply.failure(400, "Framework '" + "x".repeat(100_000) + "' is unknown");
    MesosResponse bounded = scheduler(codec).call(teardownCall());
    assertThat(bounded.status()).isEqualTo(400);
    assertThat(bounded.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(1024);
    assertThat(bounded.body()).startsWith("Framework 'xxx").endsWith(" more characters)");

    scheduler.reply = new Reply.Ok();
    assertThat(scheduler(codec).call(teardownCall()).status()).isEqualTo(200);

    MesosResponse viaMasterPath =
        MesosSchedulerClient.at(
                URI.create("http://" + hostPort() + "/master/api/v1/scheduler"), codec)
            .call(teardownCall());
    assertThat(viaMasterPath.status()).isEqualTo(200);
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void closingAStreamSendsWhatWasQueuedThenEndsIt(MediaType codec) throws Exception {
    scheduler.onOpen =
        stream -> {
          stream.send(
              Event.newBuilder()
                  .setType(Event.Type.ERROR)
                  .setError(Event.Error.newBuilder().setMessage("Role '/test/test1' is invalid"))
                  .build());
          stream.close();
        };
    try (MesosEventStream<Event> stream = scheduler(codec).subscribe(subscribeCall())) {
      assertThat(stream.status()).isEqualTo(200);
      assertThat(stream.awaitEvent(Event.Type.ERROR, WAIT).getError().getMessage())
          .contains("/test/test1");
      assertThat(stream.awaitEnd(WAIT)).isTrue();
      assertThat(stream.failure()).isEmpty();
    }
    EventStream closed = RecordingEndpoints.take(scheduler.streams);
    assertThat(closed.isOpen()).isFalse();
    assertThat(closed.send(Event.getDefaultInstance())).isFalse();
  }

  // ---- the executor endpoint: 17, 19, 20, 22, 24 ----

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void executorSubscribeStreamsWithoutAStreamId(MediaType codec) throws Exception {
    for (String path : new String[] {"/api/v1/executor", "/slave(1)/api/v1/executor"}) {
      MesosExecutorClient client =
          MesosExecutorClient.at(URI.create("http://" + hostPort() + path), codec);
      try (MesosEventStream<io.acceld.proto.mesos.v1.executor.Event> stream =
          client.subscribe(executorSubscribe())) {
        assertThat(stream.status()).as(path).isEqualTo(200);
        assertThat(stream.header("Content-Type")).contains(codec.value());
        assertThat(stream.header("Transfer-Encoding")).contains("chunked");
        assertThat(stream.streamId()).isEmpty();
        assertThat(
                stream.nextEvent(WAIT).getSubscribed().getExecutorInfo().getExecutorId().getValue())
            .isEqualTo("ex-1");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void executorCallsWithoutTheirMessageAre400(MediaType codec) throws Exception {
    for (io.acceld.proto.mesos.v1.executor.Call.Type type :
        new io.acceld.proto.mesos.v1.executor.Call.Type[] {
          io.acceld.proto.mesos.v1.executor.Call.Type.SUBSCRIBE,
          io.acceld.proto.mesos.v1.executor.Call.Type.UPDATE,
          io.acceld.proto.mesos.v1.executor.Call.Type.MESSAGE
        }) {
      MesosResponse answer = executor(codec).call(executorCall(type));
      assertThat(answer.status()).as(type.name()).isEqualTo(400);
      assertThat(answer.body())
          .isEqualTo("Expecting '" + type.name().toLowerCase() + "' to be present");
    }
    MesosResponse noType =
        executor(codec)
            .call(
                executorCall(io.acceld.proto.mesos.v1.executor.Call.Type.UPDATE).toBuilder()
                    .clearType()
                    .build());
    assertThat(noType.status()).isEqualTo(400);
    assertThat(executor.calls).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void executorCallsWhileRecoveringAre503(MediaType codec) throws Exception {
    executor.recovering = true;
    try (MesosEventStream<io.acceld.proto.mesos.v1.executor.Event> stream =
        executor(codec).subscribe(executorSubscribe())) {
      assertThat(stream.status()).isEqualTo(503);
      assertThat(stream.errorBody()).isEqualTo("Agent has not finished recovery");
    }
    assertThat(executor.calls).isEmpty();
    executor.recovering = false;
    try (MesosEventStream<io.acceld.proto.mesos.v1.executor.Event> stream =
        executor(codec).subscribe(executorSubscribe())) {
      assertThat(stream.status()).isEqualTo(200);
    }
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void executorHeartbeatIs202BeforeAnyLookup(MediaType codec) throws Exception {
    io.acceld.proto.mesos.v1.executor.Call heartbeat =
        executorCall(io.acceld.proto.mesos.v1.executor.Call.Type.HEARTBEAT).toBuilder()
            .setFrameworkId(FrameworkID.newBuilder().setValue("dummy"))
            .setExecutorId(RecordingExecutor.id("dummy"))
            .build();
    MesosResponse answer = executor(codec).call(heartbeat);
    assertThat(answer.status()).isEqualTo(202);
    assertThat(answer.body()).isEmpty();
    assertThat(executor.calls).isEmpty();

    assertThat(
            executor(codec)
                .call(executorCall(io.acceld.proto.mesos.v1.executor.Call.Type.UNKNOWN))
                .status())
        .isEqualTo(501);
    io.acceld.proto.mesos.v1.executor.Call message =
        executorCall(io.acceld.proto.mesos.v1.executor.Call.Type.MESSAGE).toBuilder()
            .setMessage(
                io.acceld.proto.mesos.v1.executor.Call.Message.newBuilder()
                    .setData(ByteString.copyFromUtf8("hi")))
            .build();
    assertThat(executor(codec).call(message).status()).isEqualTo(202);
    assertThat(executor.calls).containsExactly(message);
  }

  // ---- streams on the wire: chunked, one record per chunk, ASCII-safe ----

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void eachEventIsOneRecordInOneChunk(MediaType codec) throws Exception {
    try (RawHttp.Stream raw = RawHttp.subscribe(server.port(), codec, subscribeCall())) {
      assertThat(raw.status()).isEqualTo(200);
      assertThat(raw.header("Transfer-Encoding")).contains("chunked");
      assertThat(raw.header("Content-Length")).isEmpty();
      assertThat(raw.header("Content-Type")).contains(codec.value());
      assertThat(raw.header("Mesos-Stream-Id")).isPresent();
      byte[] subscribed = raw.nextChunkAsOneRecord();
      byte[] heartbeat = raw.nextChunkAsOneRecord();
      assertThat(MesosCodec.decode(subscribed, codec, Event.getDefaultInstance()).getType())
          .isEqualTo(Event.Type.SUBSCRIBED);
      assertThat(MesosCodec.decode(heartbeat, codec, Event.getDefaultInstance()).getType())
          .isEqualTo(Event.Type.HEARTBEAT);
      if (codec == MediaType.JSON) {
        String json = new String(subscribed, StandardCharsets.ISO_8859_1);
        assertThat(json.chars().allMatch(c -> c >= 0x20 && c < 0x7f)).as(json).isTrue();
        assertThat(json).contains("gp\\u00FC-node").doesNotContain(" ");
      }
      EventStream stream = RecordingEndpoints.take(scheduler.streams);
      stream.close();
      assertThat(raw.nextChunkSize()).isZero(); // the last chunk: the response ended cleanly
    }
  }

  @Test
  void aClientThatHangsUpClosesItsStreamAndRunsItsListeners() throws Exception {
    AtomicBoolean closed = new AtomicBoolean();
    EventStream stream;
    try (RawHttp.Stream raw = RawHttp.subscribe(server.port(), MediaType.JSON, subscribeCall())) {
      raw.nextChunkAsOneRecord();
      stream = RecordingEndpoints.take(scheduler.streams);
      stream.onClose(() -> closed.set(true));
    }
    Event heartbeat = Event.newBuilder().setType(Event.Type.HEARTBEAT).build();
    // The server learns of the hang-up when it next writes, as with any TCP peer.
    Eventually.await(
        "the stream to notice its client is gone",
        () -> {
          stream.send(heartbeat);
          return closed.get();
        });
    assertThat(stream.isOpen()).isFalse();
    AtomicBoolean late = new AtomicBoolean();
    stream.onClose(() -> late.set(true));
    assertThat(late).isTrue();
  }

  @Test
  void aReaderThatNeverReadsDelaysNoOtherSubscriberNorCall() throws Exception {
    try (RawHttp.Stream stuck = RawHttp.subscribe(server.port(), MediaType.JSON, subscribeCall())) {
      EventStream stuckStream = RecordingEndpoints.take(scheduler.streams);
      AtomicBoolean stuckClosed = new AtomicBoolean();
      stuckStream.onClose(() -> stuckClosed.set(true));
      try (MesosEventStream<Event> live =
          scheduler(MediaType.PROTOBUF).subscribe(subscribeCall())) {
        EventStream liveStream = RecordingEndpoints.take(scheduler.streams);
        live.awaitEvent(Event.Type.HEARTBEAT, WAIT);
        Event big =
            Event.newBuilder()
                .setType(Event.Type.MESSAGE)
                .setMessage(
                    Event.Message.newBuilder()
                        .setAgentId(io.acceld.proto.mesos.v1.AgentID.newBuilder().setValue("a"))
                        .setExecutorId(RecordingExecutor.id("e"))
                        .setData(ByteString.copyFrom(new byte[1 << 20])))
                .build();
        // Until its socket buffers and then its 4-event queue are full: then it is dropped.
        int sent = 0;
        while (stuckStream.send(big) && sent < 10_000) {
          sent++;
        }
        assertThat(stuckStream.isOpen()).isFalse();
        Eventually.await("the stuck stream's connection to be dropped", stuckClosed::get);

        liveStream.send(
            Event.newBuilder()
                .setType(Event.Type.RESCIND)
                .setRescind(
                    Event.Rescind.newBuilder()
                        .setOfferId(io.acceld.proto.mesos.v1.OfferID.newBuilder().setValue("o1")))
                .build());
        assertThat(live.awaitEvent(Event.Type.RESCIND, WAIT).getRescind().getOfferId().getValue())
            .isEqualTo("o1");
        assertThat(scheduler(MediaType.JSON).call(teardownCall()).status()).isEqualTo(202);
      }
    }
  }

  @Test
  void streamsBeyondTheLimitAre503AndTheirSlotsComeBack() throws Exception {
    java.util.List<MesosEventStream<Event>> open = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < 8; i++) {
        MesosEventStream<Event> stream = scheduler(MediaType.JSON).subscribe(subscribeCall());
        assertThat(stream.status()).isEqualTo(200);
        open.add(stream);
      }
      try (MesosEventStream<Event> refused = scheduler(MediaType.JSON).subscribe(subscribeCall())) {
        assertThat(refused.status()).isEqualTo(503);
      }
      // Short calls still have their own threads.
      assertThat(scheduler(MediaType.JSON).call(teardownCall()).status()).isEqualTo(202);
    } finally {
      for (MesosEventStream<Event> stream : open) {
        stream.close();
      }
    }
    for (int i = 0; i < 8; i++) {
      RecordingEndpoints.take(scheduler.streams).close();
    }
    Eventually.await(
        "a slot to be free again",
        () -> {
          try (MesosEventStream<Event> again =
              scheduler(MediaType.JSON).subscribe(subscribeCall())) {
            return again.status() == 200;
          } catch (java.io.IOException e) {
            return false;
          }
        });
  }

  // ---- the other routes ----

  @Test
  void versionRedirectStateAndUnknownPaths() throws Exception {
    MesosSchedulerClient client = scheduler(MediaType.JSON);
    for (String path : new String[] {"/version", "/master/version"}) {
      MesosResponse version = client.request("GET", path);
      assertThat(version.status()).isEqualTo(200);
      assertThat(version.header("Content-Type")).contains("application/json");
      assertThat(version.body()).startsWith("{\"version\":\"1.11.0\"").contains("\"git_sha\"");
    }
    for (String path : new String[] {"/redirect", "/master/redirect"}) {
      MesosResponse redirect = client.request("GET", path);
      assertThat(redirect.status()).isEqualTo(307);
      assertThat(redirect.header("Location")).contains("//" + hostPort());
    }
    MesosResponse state = client.request("GET", "/state");
    assertThat(state.status()).isEqualTo(200);
    assertThat(state.header("Content-Type")).contains("application/json");
    assertThat(state.body()).isEqualTo("{\"frameworks\":[]}");
    assertThat(client.request("POST", "/state").status()).isEqualTo(405);
    assertThat(client.request("GET", "/api/v1/operator").status()).isEqualTo(404);
  }
}
