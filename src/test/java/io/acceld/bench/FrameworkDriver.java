package io.acceld.bench;

import static io.acceld.testing.mesos.MesosCalls.acknowledge;
import static io.acceld.testing.mesos.MesosCalls.scalarOf;

import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.Filters;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.OfferID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosResponse;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.io.IOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One framework as a throughput-minded scheduler drives it: a single thread pumps its event stream,
 * keeps the outstanding offers (OFFERS in, RESCIND out), acknowledges every update that carries a
 * UUID, and stamps each event with the time it was taken off the stream. The harness asks it for
 * the next offer or the next state of a task; it never sleeps.
 */
final class FrameworkDriver implements AutoCloseable {
  /**
   * Longest wait for any one event before the harness gives up: a hang is a failure, not a figure.
   */
  static final Duration WAIT = Duration.ofSeconds(30);

  private final MesosSchedulerClient client;
  private final MesosEventStream<Event> events;
  private final FrameworkID id;
  private final String streamId;
  private final Map<OfferID, Offer> offers = new LinkedHashMap<>();
  private long heartbeats;

  private FrameworkDriver(
      MesosSchedulerClient client, MesosEventStream<Event> events, FrameworkID id, String stream) {
    this.client = client;
    this.events = events;
    this.id = id;
    this.streamId = stream;
  }

  /** SUBSCRIBEs {@code info} and reads up to its SUBSCRIBED event. */
  static FrameworkDriver subscribe(String hostPort, MediaType codec, FrameworkInfo info)
      throws IOException {
    MesosSchedulerClient client = MesosSchedulerClient.of(hostPort, codec);
    MesosEventStream<Event> events = client.subscribe(FrameworkDriverCalls.subscribeCall(info));
    if (events.status() != 200) {
      throw new IllegalStateException(
          "SUBSCRIBE answered " + events.status() + ": " + events.errorBody());
    }
    Event first = events.nextEvent(WAIT);
    if (first.getType() != Event.Type.SUBSCRIBED) {
      throw new IllegalStateException("first event was " + first.getType());
    }
    return new FrameworkDriver(
        client, events, first.getSubscribed().getFrameworkId(), events.streamId().orElseThrow());
  }

  FrameworkID id() {
    return id;
  }

  long heartbeats() {
    return heartbeats;
  }

  /**
   * HEARTBEATs the stream's reader has received, pumped or not: for frameworks the harness only
   * keeps subscribed, whose events are never pumped.
   */
  long heartbeatsReceived() {
    return events.seen().stream().filter(e -> e.getType() == Event.Type.HEARTBEAT).count();
  }

  /** Handles the next event; returns it with the time it was read. */
  Stamped pump() throws IOException {
    Event event = events.nextEvent(WAIT);
    long now = System.nanoTime();
    switch (event.getType()) {
      case OFFERS -> event.getOffers().getOffersList().forEach(o -> offers.put(o.getId(), o));
      case RESCIND -> offers.remove(event.getRescind().getOfferId());
      case UPDATE -> {
        TaskStatus status = event.getUpdate().getStatus();
        if (status.hasUuid()) {
          expect202("ACKNOWLEDGE", call(acknowledge(id, status)));
        }
      }
      case HEARTBEAT -> heartbeats++;
      case ERROR ->
          throw new IllegalStateException("ERROR event: " + event.getError().getMessage());
      default -> {}
    }
    return new Stamped(now, event);
  }

  /**
   * The outstanding offer with the most GPUs that has at least {@code gpus} of them, pumping events
   * until there is one; it is taken out of the book (the caller is about to use it).
   */
  Offer takeOffer(double gpus) throws IOException {
    while (true) {
      Optional<Offer> best =
          offers.values().stream()
              .filter(o -> scalarOf(o, "gpus") >= gpus)
              .max(Comparator.comparingDouble(o -> scalarOf(o, "gpus")));
      if (best.isPresent()) {
        offers.remove(best.get().getId());
        return best.get();
      }
      pump();
    }
  }

  /** Takes {@code offer} out of the book: the caller is about to use it. */
  void take(Offer offer) {
    offers.remove(offer.getId());
  }

  /** Outstanding offers right now, without pumping. */
  List<Offer> outstandingOffers() {
    return List.copyOf(offers.values());
  }

  /** Pumps until an update of {@code task} in one of {@code states}; returns it stamped. */
  Stamped awaitState(String task, List<TaskState> states, Consumer<TaskStatus> others)
      throws IOException {
    while (true) {
      Stamped s = pump();
      if (s.event().getType() == Event.Type.UPDATE) {
        TaskStatus status = s.event().getUpdate().getStatus();
        if (status.getTaskId().getValue().equals(task) && states.contains(status.getState())) {
          return s;
        }
        others.accept(status);
      }
    }
  }

  /** ACCEPT {@code offers} launching {@code tasks}, declining what is left for no time at all. */
  void accept(List<Offer> offers, List<TaskInfo> tasks) throws IOException {
    expect202("ACCEPT", call(FrameworkDriverCalls.accept(id, offers, tasks, refuseNothing())));
  }

  /**
   * DECLINE with Mesos's default filter (5 s): an offer of resources that cannot hold a task is
   * handed back, and held back only while nothing more than it becomes free.
   */
  void decline(Offer offer) throws IOException {
    take(offer);
    expect202("DECLINE", call(FrameworkDriverCalls.decline(id, offer)));
  }

  void kill(String task) throws IOException {
    expect202("KILL", call(io.acceld.testing.mesos.MesosCalls.kill(id, task)));
  }

  /** TEARDOWN: the master removes the framework, ends its stream and frees its offers. */
  void teardown() throws IOException {
    expect202("TEARDOWN", call(FrameworkDriverCalls.teardown(id)));
  }

  MesosResponse call(Call call) throws IOException {
    return client.call(call, Map.of("Mesos-Stream-Id", streamId));
  }

  private static Filters refuseNothing() {
    return Filters.newBuilder().setRefuseSeconds(0).build();
  }

  private static void expect202(String what, MesosResponse response) {
    if (response.status() != 202) {
      throw new IllegalStateException(what + " answered " + response.status() + ": " + response);
    }
  }

  @Override
  public void close() throws IOException {
    events.close();
  }

  /** An event and the {@link System#nanoTime()} at which the driver read it. */
  record Stamped(long nanos, Event event) {}

  /** Calls {@link io.acceld.testing.mesos.MesosCalls} has no builder for. */
  static final class FrameworkDriverCalls {
    private FrameworkDriverCalls() {}

    static Call subscribeCall(FrameworkInfo info) {
      return io.acceld.testing.mesos.MesosCalls.subscribe(info, Optional.empty());
    }

    static Call accept(
        FrameworkID framework, List<Offer> offers, List<TaskInfo> tasks, Filters filters) {
      Call.Accept.Builder accept = Call.Accept.newBuilder().setFilters(filters);
      offers.forEach(o -> accept.addOfferIds(o.getId()));
      accept.addOperations(
          Offer.Operation.newBuilder()
              .setType(Offer.Operation.Type.LAUNCH)
              .setLaunch(Offer.Operation.Launch.newBuilder().addAllTaskInfos(tasks)));
      return Call.newBuilder()
          .setFrameworkId(framework)
          .setType(Call.Type.ACCEPT)
          .setAccept(accept)
          .build();
    }

    static Call decline(FrameworkID framework, Offer offer) {
      return Call.newBuilder()
          .setFrameworkId(framework)
          .setType(Call.Type.DECLINE)
          .setDecline(Call.Decline.newBuilder().addOfferIds(offer.getId()))
          .build();
    }

    static Call teardown(FrameworkID framework) {
      return Call.newBuilder().setFrameworkId(framework).setType(Call.Type.TEARDOWN).build();
    }
  }
}
