package io.acceld.mesos.http;

import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.MasterInfo;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Small in-test endpoints standing in for the master and the containers: they record what the HTTP
 * layer hands them and answer what the test sets, so the tests see the transport alone.
 */
final class RecordingEndpoints {
  private RecordingEndpoints() {}

  static EventStream take(BlockingQueue<EventStream> streams) throws InterruptedException {
    Duration wait = Waits.scaled(Duration.ofSeconds(10));
    EventStream stream = streams.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
    if (stream == null) {
      throw new AssertionError("no stream was opened within " + wait);
    }
    return stream;
  }

  /** A scheduler endpoint: SUBSCRIBED (with a non-ASCII hostname) and a HEARTBEAT per stream. */
  static final class RecordingScheduler implements SchedulerEndpoint {
    final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    final List<Optional<String>> streamIds = Collections.synchronizedList(new ArrayList<>());
    final List<Optional<String>> principals = Collections.synchronizedList(new ArrayList<>());
    final BlockingQueue<EventStream> streams = new LinkedBlockingQueue<>();
    volatile Reply reply = Reply.accepted();
    volatile Consumer<EventStream> onOpen = stream -> {};

    @Override
    public Reply subscribe(Call call, Optional<String> principal) {
      calls.add(call);
      principals.add(principal);
      return new Reply.Stream(
          Optional.of(UUID.randomUUID().toString()),
          stream -> {
            stream.send(subscribed("fw-1"));
            stream.send(Event.newBuilder().setType(Event.Type.HEARTBEAT).build());
            onOpen.accept(stream);
            streams.add(stream);
          });
    }

    @Override
    public Reply handle(Call call, Optional<String> streamId, Optional<String> principal) {
      calls.add(call);
      streamIds.add(streamId);
      principals.add(principal);
      return reply;
    }

    static Event subscribed(String frameworkId) {
      return Event.newBuilder()
          .setType(Event.Type.SUBSCRIBED)
          .setSubscribed(
              Event.Subscribed.newBuilder()
                  .setFrameworkId(FrameworkID.newBuilder().setValue(frameworkId))
                  .setHeartbeatIntervalSeconds(15)
                  .setMasterInfo(
                      MasterInfo.newBuilder()
                          .setId("m")
                          .setIp(0)
                          .setPort(5050)
                          .setHostname("gpü-node")))
          .build();
    }
  }

  /** An executor endpoint: SUBSCRIBED per stream; recovering while the test says so. */
  static final class RecordingExecutor implements ExecutorEndpoint {
    final List<io.acceld.proto.mesos.v1.executor.Call> calls =
        Collections.synchronizedList(new ArrayList<>());
    final BlockingQueue<EventStream> streams = new LinkedBlockingQueue<>();
    volatile boolean recovering;

    @Override
    public boolean recovering() {
      return recovering;
    }

    @Override
    public Reply subscribe(io.acceld.proto.mesos.v1.executor.Call call) {
      calls.add(call);
      return new Reply.Stream(
          Optional.empty(),
          stream -> {
            stream.send(
                io.acceld.proto.mesos.v1.executor.Event.newBuilder()
                    .setType(io.acceld.proto.mesos.v1.executor.Event.Type.SUBSCRIBED)
                    .setSubscribed(
                        io.acceld.proto.mesos.v1.executor.Event.Subscribed.newBuilder()
                            .setExecutorInfo(
                                ExecutorInfo.newBuilder().setExecutorId(call.getExecutorId()))
                            .setFrameworkInfo(
                                FrameworkInfo.newBuilder()
                                    .setUser("u")
                                    .setName("n")
                                    .setId(call.getFrameworkId()))
                            .setAgentInfo(AgentInfo.newBuilder().setHostname("node-1")))
                    .build());
            streams.add(stream);
          });
    }

    @Override
    public Reply handle(io.acceld.proto.mesos.v1.executor.Call call) {
      calls.add(call);
      return Reply.accepted();
    }

    static ExecutorID id(String value) {
      return ExecutorID.newBuilder().setValue(value).build();
    }
  }
}
