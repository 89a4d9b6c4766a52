package io.acceld.mesos;

import static io.acceld.testing.mesos.MesosCalls.accept;
import static io.acceld.testing.mesos.MesosCalls.acknowledge;
import static io.acceld.testing.mesos.MesosCalls.commandTask;
import static io.acceld.testing.mesos.MesosCalls.framework;
import static io.acceld.testing.mesos.MesosCalls.kill;
import static io.acceld.testing.mesos.MesosCalls.scalar;
import static io.acceld.testing.mesos.MesosCalls.scalarOf;
import static io.acceld.testing.mesos.MesosCalls.subscribe;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Label;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosResponse;
import io.acceld.testing.mesos.MesosSchedulerClient;
import io.grpc.StatusRuntimeException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Mesos bridge inside the real daemon, on the eight-GPU fixture node with the NVML double, next
 * to a kubelet double: what a framework sees, and what the kubelet sees of it.
 */
class MesosBridgeIT {
  private static final String GPU = "nvidia.com/gpu";
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path root;

  private FixtureNode node;
  private NvmlDouble nvml;

  private AgentDaemon start(KubeletDouble kubelet, Map<String, String> more) throws Exception {
    if (node == null) {
      node = Fixtures.eightGpuNode(root.resolve("node"));
      nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    }
    Map<String, String> flags = DaemonFlags.withMesos(root, node, nvml, kubelet, "1s");
    flags.putAll(more);
    AgentDaemon daemon = AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()));
    kubelet.awaitRegistered(GPU, WAIT);
    return daemon;
  }

  private static MesosSchedulerClient client(AgentDaemon daemon, MediaType codec) {
    return MesosSchedulerClient.of("127.0.0.1:" + daemon.mesos().orElseThrow().port(), codec);
  }

  /** A subscribed framework: its stream, ID and stream ID. */
  private record Subscribed(
      MesosSchedulerClient client, MesosEventStream<Event> events, FrameworkID id, String stream) {
    MesosResponse call(Call call) throws Exception {
      return client.call(call, Map.of("Mesos-Stream-Id", stream));
    }

    Offer nextOffer() {
      return events.awaitEvent(Event.Type.OFFERS, WAIT).getOffers().getOffers(0);
    }

    /** Reads updates, acknowledging each, until {@code task} reaches {@code state}. */
    TaskStatus awaitState(String task, TaskState state) throws Exception {
      while (true) {
        TaskStatus status = events.awaitEvent(Event.Type.UPDATE, WAIT).getUpdate().getStatus();
        if (status.hasUuid()) {
          assertThat(call(acknowledge(id, status)).status()).isEqualTo(202);
        }
        if (status.getTaskId().getValue().equals(task) && status.getState() == state) {
          return status;
        }
        assertThat(status.getState())
            .as("%s: %s", status.getTaskId().getValue(), status.getMessage())
            .isIn(TaskState.TASK_STARTING, TaskState.TASK_RUNNING, TaskState.TASK_STAGING);
      }
    }
  }

  private static Subscribed subscribed(
      MesosSchedulerClient client, FrameworkInfo info, Optional<FrameworkID> id) throws Exception {
    MesosEventStream<Event> events = client.subscribe(subscribe(info, id));
    assertThat(events.status()).isEqualTo(200);
    Event first = events.nextEvent(WAIT);
    assertThat(first.getType()).isEqualTo(Event.Type.SUBSCRIBED);
    return new Subscribed(
        client, events, first.getSubscribed().getFrameworkId(), events.streamId().orElseThrow());
  }

  private static List<String> devicesOf(TaskStatus status) {
    return status.getLabels().getLabelsList().stream()
        .filter(l -> l.getKey().equals("acceld.io/devices"))
        .map(Label::getValue)
        .flatMap(v -> List.of(v.split(",")).stream())
        .toList();
  }

  private static Map<String, String> envFile(Path file) throws Exception {
    Map<String, String> env = new HashMap<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }

  private static boolean unhealthyExactly(List<DeviceState> devices, Set<String> ids) {
    return devices.size() == 8
        && devices.stream().allMatch(d -> d.healthy() != ids.contains(d.id()));
  }

  private static HttpResponse<String> agentGet(AgentDaemon daemon, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + daemon.metricsServer().port() + path))
                .timeout(WAIT)
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @ParameterizedTest
  @EnumSource(MediaType.class)
  void aTaskSeesExactlyItsGpusAndThePodSideSeesThemHeldUntilItEnds(MediaType codec)
      throws Exception {
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        AgentDaemon daemon = start(kubelet, Map.of())) {
      Subscribed fw = subscribed(client(daemon, codec), framework("it", true), Optional.empty());
      Offer offer = fw.nextOffer();
      assertThat(scalarOf(offer, "gpus")).isEqualTo(8.0);
      assertThat(scalarOf(offer, "cpus")).isPositive();
      assertThat(scalarOf(offer, "mem")).isPositive();

      Path envOut = root.resolve("task-env");
      MesosResponse accepted =
          fw.call(
              accept(
                  fw.id(),
                  offer,
                  List.of(
                      commandTask(
                          "t1",
                          offer.getAgentId(),
                          "env > '" + envOut + "'; exec sleep 120",
                          List.of(scalar("cpus", 0.1), scalar("mem", 32), scalar("gpus", 2))))));
      assertThat(accepted.status()).isEqualTo(202);

      TaskStatus running = fw.awaitState("t1", TaskState.TASK_RUNNING);
      List<String> gpus = devicesOf(running);
      assertThat(gpus).hasSize(2).allMatch(id -> id.startsWith("GPU-"));
      // Its whole env: the shell's redirection creates the file before env writes to it, and a
      // test that waited for the file alone read it empty in between (an idle CI run). env writes
      // its few KiB at exit in one go.
      kubelet.awaitCondition(
          "the task wrote its env",
          () -> {
            try {
              return Files.exists(envOut) && Files.readString(envOut).contains("MESOS_TASK_ID=");
            } catch (java.io.IOException e) {
              return false;
            }
          },
          WAIT);
      Map<String, String> env = envFile(envOut);
      assertThat(env.get("NVIDIA_VISIBLE_DEVICES")).isEqualTo(String.join(",", gpus));
      assertThat(env.get("CUDA_VISIBLE_DEVICES")).isEqualTo(String.join(",", gpus));
      assertThat(env).containsKeys("MESOS_SANDBOX", "MESOS_TASK_ID", "MESOS_FRAMEWORK_ID");

      kubelet.awaitDevices(GPU, d -> unhealthyExactly(d, Set.copyOf(gpus)), WAIT);
      // `acceld devices --agent` (GET /devices) names the task as the holder.
      String devices = agentGet(daemon, "/devices").body();
      for (com.fasterxml.jackson.databind.JsonNode row :
          new com.fasterxml.jackson.databind.ObjectMapper().readTree(devices)) {
        if (gpus.contains(row.get("id").asText())) {
          assertThat(row.get("holderKind").asText()).isEqualTo("mesos_task");
          assertThat(row.get("holder").asText()).isEqualTo(fw.id().getValue() + "/t1");
        }
      }
      // The agent's own endpoints see the bridge: its series, and a healthy /healthz.
      assertThat(agentGet(daemon, "/metrics").body())
          .contains("acceld_mesos_frameworks{state=\"subscribed\"} 1.0")
          .contains("acceld_mesos_tasks{state=\"TASK_RUNNING\"} 1.0");
      HttpResponse<String> health = agentGet(daemon, "/healthz");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).doesNotContain("degraded");

      assertThat(fw.call(kill(fw.id(), "t1")).status()).isEqualTo(202);
      fw.awaitState("t1", TaskState.TASK_KILLED);
      kubelet.awaitDevices(GPU, d -> unhealthyExactly(d, Set.of()), WAIT);
    }
  }

  @Test
  void aFrameworkWithoutGpuResourcesIsOfferedNothingUntilItAddsTheCapability() throws Exception {
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        AgentDaemon daemon = start(kubelet, Map.of("mesos-heartbeat", "200ms"))) {
      FrameworkInfo plain = framework("no-gpus", false);
      Subscribed fw = subscribed(client(daemon, MediaType.JSON), plain, Optional.empty());
      for (int i = 0; i < 4; i++) {
        fw.events().awaitEvent(Event.Type.HEARTBEAT, WAIT);
      }
      assertThat(fw.events().seen()).noneMatch(e -> e.getType() == Event.Type.OFFERS);

      FrameworkInfo withGpus = framework("no-gpus", true).toBuilder().setId(fw.id()).build();
      assertThat(fw.call(io.acceld.testing.mesos.MesosCalls.updateFramework(withGpus)).status())
          .isEqualTo(200);
      assertThat(scalarOf(fw.nextOffer(), "gpus")).isEqualTo(8.0);
    }
  }

  @Test
  void gpusAPodHoldsAreNeverOfferedAndAnOfferIsRescindedWhenAPodTakesOne() throws Exception {
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        AgentDaemon daemon = start(kubelet, Map.of())) {
      List<String> ids =
          kubelet.awaitDevices(GPU, d -> d.size() == 8, WAIT).stream()
              .map(DeviceState::id)
              .sorted()
              .toList();
      kubelet.allocateOne(GPU, List.of(ids.get(0)));

      Subscribed fw =
          subscribed(client(daemon, MediaType.PROTOBUF), framework("it", true), Optional.empty());
      Offer offer = fw.nextOffer();
      assertThat(scalarOf(offer, "gpus")).isEqualTo(7.0);

      kubelet.allocateOne(GPU, List.of(ids.get(1)));
      Event rescind = fw.events().awaitEvent(Event.Type.RESCIND, WAIT);
      assertThat(rescind.getRescind().getOfferId()).isEqualTo(offer.getId());
      assertThat(scalarOf(fw.nextOffer(), "gpus")).isEqualTo(6.0);
    }
  }

  @Test
  void theLastGpuGoesToExactlyOneSideWhenThePodAndTheTaskAskAtOnce() throws Exception {
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        AgentDaemon daemon = start(kubelet, Map.of())) {
      List<String> ids =
          kubelet.awaitDevices(GPU, d -> d.size() == 8, WAIT).stream()
              .map(DeviceState::id)
              .sorted()
              .toList();
      for (String id : ids.subList(0, 7)) {
        kubelet.allocateOne(GPU, List.of(id));
      }
      String last = ids.get(7);
      Subscribed fw =
          subscribed(client(daemon, MediaType.JSON), framework("race", true), Optional.empty());
      Offer offer = fw.nextOffer();
      assertThat(scalarOf(offer, "gpus")).isEqualTo(1.0);

      CountDownLatch go = new CountDownLatch(1);
      CompletableFuture<Boolean> podWon =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  go.await();
                  kubelet.allocateOne(GPU, List.of(last));
                  return true;
                } catch (StatusRuntimeException e) {
                  return false;
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      CompletableFuture<Integer> accepted =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  go.await();
                  return fw.call(
                          accept(
                              fw.id(),
                              offer,
                              List.of(
                                  commandTask(
                                      "last",
                                      offer.getAgentId(),
                                      "exec sleep 120",
                                      List.of(scalar("cpus", 0.1), scalar("gpus", 1))))))
                      .status();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      go.countDown();
      assertThat(accepted.get()).isEqualTo(202);
      TaskStatus outcome = null;
      while (outcome == null) {
        TaskStatus s = fw.events().awaitEvent(Event.Type.UPDATE, WAIT).getUpdate().getStatus();
        if (s.hasUuid()) {
          fw.call(acknowledge(fw.id(), s));
        }
        if (s.getState() == TaskState.TASK_RUNNING
            || s.getState() == TaskState.TASK_DROPPED
            || s.getState() == TaskState.TASK_LOST) {
          outcome = s;
        }
      }
      boolean taskWon = outcome.getState() == TaskState.TASK_RUNNING;
      assertThat(taskWon)
          .as("exactly one side got %s: %s", last, outcome)
          .isNotEqualTo(podWon.get());
      if (taskWon) {
        assertThat(devicesOf(outcome)).containsExactly(last);
        fw.call(kill(fw.id(), "last"));
        fw.awaitState("last", TaskState.TASK_KILLED);
      } else {
        // The pod won: either the offer was already rescinded, or the ledger refused the lease.
        assertThat(outcome.getReason()).isEqualTo(TaskStatus.Reason.REASON_INVALID_OFFERS);
        assertThat(outcome.getMessage()).containsAnyOf(last, "no longer valid");
      }
    }
  }

  @Test
  void afterARestartTheTaskIsReattachedItsLeaseKeptAndReconciliationTellsTheTruth()
      throws Exception {
    FrameworkID id;
    List<String> gpus;
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"))) {
      FrameworkInfo info = framework("failover", true).toBuilder().setFailoverTimeout(600).build();
      try (AgentDaemon daemon = start(kubelet, Map.of())) {
        Subscribed fw = subscribed(client(daemon, MediaType.JSON), info, Optional.empty());
        id = fw.id();
        Offer offer = fw.nextOffer();
        fw.call(
            accept(
                id,
                offer,
                List.of(
                    commandTask(
                        "survivor",
                        offer.getAgentId(),
                        "exec sleep 120",
                        List.of(scalar("cpus", 0.1), scalar("gpus", 1))))));
        gpus = devicesOf(fw.awaitState("survivor", TaskState.TASK_RUNNING));
      }
      try (AgentDaemon daemon = start(kubelet, Map.of())) {
        kubelet.awaitDevices(GPU, d -> unhealthyExactly(d, Set.copyOf(gpus)), WAIT);
        Subscribed fw = subscribed(client(daemon, MediaType.JSON), info, Optional.of(id));
        assertThat(fw.id()).isEqualTo(id);
        Offer offer = fw.nextOffer();
        assertThat(scalarOf(offer, "gpus")).isEqualTo(7.0);

        assertThat(fw.call(io.acceld.testing.mesos.MesosCalls.reconcileAll(id)).status())
            .isEqualTo(202);
        TaskStatus truth = null;
        while (truth == null) {
          TaskStatus s = fw.events().awaitEvent(Event.Type.UPDATE, WAIT).getUpdate().getStatus();
          if (s.hasUuid()) {
            fw.call(acknowledge(id, s));
          } else {
            truth = s;
          }
        }
        assertThat(truth.getState()).isEqualTo(TaskState.TASK_RUNNING);
        assertThat(truth.getReason()).isEqualTo(TaskStatus.Reason.REASON_RECONCILIATION);

        fw.call(kill(id, "survivor"));
        fw.awaitState("survivor", TaskState.TASK_KILLED);
        kubelet.awaitDevices(GPU, d -> unhealthyExactly(d, Set.of()), WAIT);
      }
    }
  }

  @SuppressWarnings("unused")
  private static String describe(List<Event> events) {
    List<String> types = new ArrayList<>();
    events.forEach(e -> types.add(e.getType().name()));
    return types.stream().collect(Collectors.joining(","));
  }
}
