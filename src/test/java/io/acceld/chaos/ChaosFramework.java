package io.acceld.chaos;

import static io.acceld.testing.mesos.MesosCalls.acknowledge;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.Filters;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.testing.Eventually;
import io.acceld.testing.Waits;
import io.acceld.testing.mesos.MesosCalls;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosResponse;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A framework subscribed to the agent's Mesos bridge over real HTTP, as a v1 scheduler library
 * would be; updates are acknowledged as they are read ({@link #pump}). Every timeout it takes is
 * the time on an idle machine, scaled by {@link Waits}.
 */
final class ChaosFramework {
  /** How long one wait for the next event lasts before the caller checks its deadline again. */
  private static final Duration POLL = Duration.ofMillis(100);

  final MesosSchedulerClient client;
  final MesosEventStream<Event> events;
  final FrameworkID id;
  final String stream;
  final Map<String, TaskState> states = new ConcurrentHashMap<>();
  final Map<String, String> messages = new ConcurrentHashMap<>();
  int read; // events of the stream handled so far
  final Set<String> declined = new HashSet<>();

  ChaosFramework(MesosSchedulerClient client, MesosEventStream<Event> events, FrameworkID id) {
    this.client = client;
    this.events = events;
    this.id = id;
    this.stream = events.streamId().orElseThrow();
  }

  void call(Call call) throws Exception {
    int status = client.call(call, Map.of("Mesos-Stream-Id", stream)).status();
    assertThat(status).as("%s answered", call.getType()).isIn(200, 202);
  }

  /** Handles every event read so far: records task states, acknowledges updates. */
  void pump() throws Exception {
    List<Event> seen = events.seen();
    for (; read < seen.size(); read++) {
      Event e = seen.get(read);
      if (e.getType() == Event.Type.UPDATE) {
        TaskStatus s = e.getUpdate().getStatus();
        states.put(s.getTaskId().getValue(), s.getState());
        if (s.hasUuid()) {
          call(acknowledge(id, s));
        }
      }
    }
  }

  /** The newest offer with GPUs not rescinded and not in {@code used}, waiting for one. */
  Offer awaitOffer(Set<String> used, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + Waits.scaled(timeout).toNanos();
    while (System.nanoTime() < deadline) {
      pump();
      Map<String, Offer> open = openOffers();
      Optional<Offer> withGpus =
          open.values().stream()
              .filter(o -> !used.contains(o.getId().getValue()))
              .filter(o -> o.getResourcesList().stream().anyMatch(r -> r.getName().equals("gpus")))
              .reduce((a, b) -> b);
      if (withGpus.isPresent()) {
        return withGpus.get();
      }
      events.awaitMoreThan(read, POLL); // the next event, or the deadline's next check
    }
    throw new AssertionError("no offer with GPUs within " + timeout + ": " + events.seen());
  }

  /** Waits until every task in {@code ids} had an update; their latest states. */
  Map<String, TaskState> awaitUpdates(List<String> ids, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + Waits.scaled(timeout).toNanos();
    while (!states.keySet().containsAll(ids) && System.nanoTime() < deadline) {
      pump();
      events.awaitMoreThan(read, POLL); // the next event, or the deadline's next check
    }
    Map<String, TaskState> got = new HashMap<>();
    ids.forEach(id -> Optional.ofNullable(states.get(id)).ifPresent(st -> got.put(id, st)));
    return got;
  }

  /** Subscribes (again, with {@code id}) once the bridge on {@code port} has recovered. */
  static ChaosFramework subscribe(
      int port, FrameworkInfo info, Optional<FrameworkID> id, Duration wait) throws Exception {
    MesosSchedulerClient client = MesosSchedulerClient.of("127.0.0.1:" + port, MediaType.PROTOBUF);
    Eventually.await(
        "the bridge recovered and answers on port " + port,
        wait,
        () -> {
          try {
            MesosResponse state = client.request("GET", "/state");
            return state.status() == 200 && !state.body().contains("\"recovering\":true");
          } catch (IOException notYetListening) {
            return false;
          }
        });
    MesosEventStream<Event> events = client.subscribe(MesosCalls.subscribe(info, id));
    assertThat(events.status()).as(events.errorBody()).isEqualTo(200);
    Event first = events.nextEvent(Waits.scaled(wait));
    assertThat(first.getType()).isEqualTo(Event.Type.SUBSCRIBED);
    ChaosFramework fw = new ChaosFramework(client, events, first.getSubscribed().getFrameworkId());
    fw.read = 1;
    return fw;
  }

  /** The offers not rescinded (nor accepted or declined by us), in the order they came. */
  Map<String, Offer> openOffers() {
    Map<String, Offer> open = new LinkedHashMap<>();
    for (Event e : events.seen()) {
      if (e.getType() == Event.Type.OFFERS) {
        e.getOffers().getOffersList().forEach(o -> open.put(o.getId().getValue(), o));
      } else if (e.getType() == Event.Type.RESCIND) {
        open.remove(e.getRescind().getOfferId().getValue());
      }
    }
    open.keySet().removeAll(declined);
    return open;
  }

  /**
   * Declines, with no filter, every open offer without GPUs, as a framework of GPU tasks does: the
   * bridge makes one framework one offer at a time, so GPUs that come back are offered once the
   * GPU-less offer held meanwhile is declined.
   */
  void declineOffersWithoutGpus() throws Exception {
    for (Offer o : openOffers().values()) {
      if (MesosCalls.scalarOf(o, "gpus") == 0 && declined.add(o.getId().getValue())) {
        call(
            Call.newBuilder()
                .setFrameworkId(id)
                .setType(Call.Type.DECLINE)
                .setDecline(
                    Call.Decline.newBuilder()
                        .addOfferIds(o.getId())
                        .setFilters(Filters.newBuilder().setRefuseSeconds(0)))
                .build());
      }
    }
  }

  /** How many GPUs the open offers hold between them. */
  double offeredGpus() {
    return openOffers().values().stream().mapToDouble(o -> MesosCalls.scalarOf(o, "gpus")).sum();
  }
}
