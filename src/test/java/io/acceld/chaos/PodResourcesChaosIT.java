package io.acceld.chaos;

import static io.acceld.kubelet.podresources.FakePodResources.container;
import static io.acceld.kubelet.podresources.FakePodResources.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.kubelet.podresources.FakePodResources;
import io.acceld.proto.podresources.v1.PodResources;
import io.acceld.testing.Eventually;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10: the kubelet's pod-resources socket goes away and comes back, round after round, while
 * pods come and go. While it is away the agent keeps serving (Allocate answered, {@code /healthz}
 * 200) and frees no lease it cannot confirm, not even a pending one past its TTL, nor one whose pod
 * was deleted while it could not see; once it is back the agent reconciles: the deleted pods'
 * devices come free and every other lease stays.
 */
class PodResourcesChaosIT {
  static final String GPU = ChaosNode.GPU;
  static final int ROUNDS = Integer.getInteger("acceld.podResourcesRounds", 6);
  static final Duration TTL = Duration.ofSeconds(1);
  static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path root;
  ChaosNode node;
  PodResourcesSocket socket;

  @AfterEach
  void close() throws Exception {
    if (node != null) {
      node.close();
    }
    if (socket != null) {
      socket.close();
    }
  }

  /** The pods the kubelet runs, by the device each holds, as pod-resources lists them. */
  final Map<String, PodResources> pods = new LinkedHashMap<>();

  void publish() {
    socket.service().answer(FakePodResources.pods(pods.values().toArray(PodResources[]::new)));
  }

  @Test
  void awayTheAgentServesAndFreesNothingBackItReconciles() throws Exception {
    ChaosSeed seed = ChaosSeed.of("PodResourcesChaosIT");
    Random random = seed.random();
    socket = new PodResourcesSocket(root.resolve("kubelet/pod-resources/kubelet.sock"));
    socket.serve();
    node =
        ChaosNode.start(
            root,
            Map.of(
                "pod-resources-socket",
                socket.path().toString(),
                "kubelet-pending-lease-ttl",
                TTL.toMillis() + "ms"));
    node.kubelet.awaitDevices(GPU, l -> l.size() == 8, WAIT);
    int samples = 0;
    Instant started = Instant.now();
    for (int round = 0; round < ROUNDS; round++) {
      String what = seed.tag("round " + round);
      // A pod starts: Allocate answered, then listed.
      String started1 = allocateFree(random, what);
      pods.put(started1, pod("chaos", "pod-" + round, container("main", GPU, started1)));
      publish();
      // Pods are deleted, one before the socket goes, one while it is away (once there are some).
      if (pods.size() >= 4) {
        String gone = pick(random, started1);
        pods.remove(gone);
        publish();
        awaitFree(gone, what + ": deleted before the socket went");
      }
      Optional<String> deleted =
          pods.size() >= 3 ? Optional.of(pick(random, started1)) : Optional.empty();
      socket.takeAway();
      // Allocated while away: only pending, never confirmable until the socket is back.
      String pending = allocateFree(random, what + " (socket away)");
      pods.put(pending, pod("chaos", "pod-" + round + "-away", container("main", GPU, pending)));
      if (deleted.isPresent()) {
        pods.remove(deleted.get());
      }
      publish();
      Set<String> mustHold = new TreeSet<>(pods.keySet());
      deleted.ifPresent(mustHold::add);
      // Away for longer than the pending TTL: nothing it cannot confirm may be freed.
      Instant back = Instant.now().plus(TTL).plusMillis(200 + random.nextInt(800));
      while (Instant.now().isBefore(back)) {
        Map<String, Holding> now = node.devices();
        for (String d : mustHold) {
          assertThat(now.get(d).kubelet())
              .as(what + ": %s freed while pod-resources is away: %s", d, now)
              .isTrue();
        }
        assertThat(node.get("/healthz").map(HttpResponse::statusCode))
            .as(what + ": /healthz while pod-resources is away")
            .hasValue(200);
        samples++;
        Thread.sleep(50); // sampling while the absence lasts; it ends at a fixed time
      }

      socket.serve();
      deleted.ifPresent(d -> awaitFree(d, what + ": reconciled"));
      Eventually.await(
          what + ": every listed pod's device held by its pod",
          WAIT,
          () -> {
            Map<String, Holding> now = devicesOrEmpty();
            return pods.entrySet().stream()
                .allMatch(
                    e ->
                        now.containsKey(e.getKey())
                            && now.get(e.getKey())
                                .holder()
                                .equals("chaos/" + e.getValue().getName() + "/main"));
          });
    }
    System.out.printf(
        "PodResourcesChaosIT: %d rounds in %d s, %d samples while away, no lease freed unconfirmed%n",
        ROUNDS, Duration.between(started, Instant.now()).toSeconds(), samples);
  }

  /** One of the pods, not {@code except}. */
  private String pick(Random random, String except) {
    List<String> candidates = pods.keySet().stream().filter(d -> !d.equals(except)).toList();
    return candidates.get(random.nextInt(candidates.size()));
  }

  private Map<String, Holding> devicesOrEmpty() {
    try {
      return node.devices();
    } catch (Exception | AssertionError e) {
      return Map.of();
    }
  }

  /** Allocates one GPU neither side holds, as the kubelet does; the answer must come. */
  private String allocateFree(Random random, String what) throws Exception {
    List<String> free =
        node.devices().values().stream().filter(Holding::free).map(Holding::id).toList();
    assertThat(free).as(what + ": a free GPU").isNotEmpty();
    String device = free.get(random.nextInt(free.size()));
    node.kubelet.awaitDevices(
        GPU, l -> l.stream().anyMatch(d -> d.id().equals(device) && d.healthy()), WAIT);
    node.kubelet.allocateOne(GPU, List.of(device));
    return device;
  }

  private void awaitFree(String device, String what) {
    Eventually.await(
        what + ": " + device + " free",
        WAIT,
        () -> Optional.ofNullable(devicesOrEmpty().get(device)).map(Holding::free).orElse(false));
  }
}
