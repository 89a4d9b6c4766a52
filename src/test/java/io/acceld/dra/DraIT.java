package io.acceld.dra;

import static io.acceld.testing.mesos.MesosCalls.accept;
import static io.acceld.testing.mesos.MesosCalls.acknowledge;
import static io.acceld.testing.mesos.MesosCalls.commandTask;
import static io.acceld.testing.mesos.MesosCalls.framework;
import static io.acceld.testing.mesos.MesosCalls.kill;
import static io.acceld.testing.mesos.MesosCalls.scalar;
import static io.acceld.testing.mesos.MesosCalls.scalarOf;
import static io.acceld.testing.mesos.MesosCalls.subscribe;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.dra.StandInKubelet.HealthStream;
import io.acceld.mesos.wire.MediaType;
import io.acceld.nvml.NvmlEventType;
import io.acceld.proto.dra.v1.Claim;
import io.acceld.proto.dra.v1.NodePrepareResourceResponse;
import io.acceld.proto.dra.v1.NodePrepareResourcesRequest;
import io.acceld.proto.dra.v1.NodePrepareResourcesResponse;
import io.acceld.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.acceld.proto.drahealth.v1alpha1.HealthStatus;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.Label;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.simulate.SimulatedGpu;
import io.acceld.testing.CdiSchemas;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.Eventually;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kube.KubeApiDouble;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.DeviceUpdate;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.mesos.MesosEventStream;
import io.acceld.testing.mesos.MesosResponse;
import io.acceld.testing.mesos.MesosSchedulerClient;
import io.grpc.ManagedChannel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * DRA end to end through the real {@link AgentDaemon} with {@code --dra-driver}: the eight-GPU
 * fixture node with the NVML double, the API-server stand-in ({@link KubeApiDouble}) over HTTP, the
 * stand-in kubelet's DRA side over the real sockets, the device-plugin kubelet double and a Mesos
 * framework, all on one node and one ledger.
 *
 * <p>One daemon serves the checks in order (starting one costs seconds; the checks leave the node
 * as they found it, or say what they leave): each check builds on what the node is at that point,
 * which the order below spells out.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DraIT {
  static final String DRIVER = "gpu.acceld.io";
  static final String NODE = "node-it";
  static final String GPU = "nvidia.com/gpu";
  static final String TOKEN = "t0k3n";
  static final Duration WAIT = Duration.ofSeconds(10);

  /** How soon a device another side takes must leave the slices. */
  static final Duration WITHDRAWN = Duration.ofSeconds(1);

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path root;

  private FixtureNode node;
  private NvmlDouble nvml;
  private KubeletDouble kubelet;
  private KubeApiDouble api;
  private AgentDaemon daemon;
  private StandInKubelet draKubelet;
  private ManagedChannel endpoint;
  private Path kubeconfig;

  @BeforeAll
  void startNode() throws Exception {
    node = Fixtures.eightGpuNode(root.resolve("node"));
    nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
    api = KubeApiDouble.start();
    api.addNode(NODE, "uid-" + NODE);
    api.requireToken(TOKEN);
    Files.createDirectories(root.resolve("kube"));
    kubeconfig = api.kubeconfig(root.resolve("kube"), TOKEN);
    Files.createDirectories(registryDir());
    Files.createDirectories(root.resolve("kubelet/plugins"));
  }

  @AfterAll
  void stopNode() throws Exception {
    stopDaemon();
    if (kubelet != null) {
      kubelet.close();
    }
    if (api != null) {
      api.close();
    }
  }

  private Path registryDir() {
    return root.resolve("kubelet/plugins_registry");
  }

  private Path cdiDir() {
    return root.resolve("cdi");
  }

  private void startDaemon() throws Exception {
    Map<String, String> flags = DaemonFlags.withMesos(root, node, nvml, kubelet, "1s");
    flags.put("dra-driver", DRIVER);
    flags.put("kubeconfig", kubeconfig.toString());
    flags.put("node-name", NODE);
    flags.put("kubelet-plugins-dir", root.resolve("kubelet/plugins").toString());
    flags.put("plugins-registry-dir", registryDir().toString());
    flags.put("cdi-dir", cdiDir().toString());
    flags.put("health-probe-interval", "200ms");
    daemon = AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()));
    draKubelet = new StandInKubelet(registryDir());
    endpoint = draKubelet.register(WAIT).endpoint();
  }

  private void stopDaemon() {
    if (draKubelet != null) {
      draKubelet.close();
      draKubelet = null;
    }
    if (daemon != null) {
      daemon.close();
      daemon = null;
    }
  }

  // ---- the node's devices, by fixture index ----

  private SimulatedGpu gpu(int index) {
    return node.gpus().get(index);
  }

  private String draName(int index) {
    return "gpu-" + gpu(index).minor();
  }

  private int indexOfUuid(String uuid) {
    for (int i = 0; i < node.gpus().size(); i++) {
      if (gpu(i).uuid().equals(uuid)) {
        return i;
      }
    }
    throw new AssertionError("no GPU " + uuid);
  }

  // ---- the API server's side ----

  /** The device names this node's slices of the driver publish now. */
  private Set<String> published() {
    Set<String> names = new TreeSet<>();
    for (JsonNode slice : api.slices(NODE, DRIVER)) {
      for (JsonNode d : slice.path("spec").path("devices")) {
        names.add(d.path("name").asText());
      }
    }
    return names;
  }

  private Map<String, JsonNode> publishedDevices() {
    Map<String, JsonNode> byName = new HashMap<>();
    for (JsonNode slice : api.slices(NODE, DRIVER)) {
      for (JsonNode d : slice.path("spec").path("devices")) {
        byName.put(d.path("name").asText(), d);
      }
    }
    return byName;
  }

  private static String claimJson(String ns, String name, String uid, String driver, String... d) {
    ObjectNode claim = JSON.createObjectNode();
    claim.put("apiVersion", "resource.k8s.io/v1");
    claim.put("kind", "ResourceClaim");
    claim.putObject("metadata").put("namespace", ns).put("name", name).put("uid", uid);
    if (d.length > 0) {
      ArrayNode results =
          claim
              .putObject("status")
              .putObject("allocation")
              .putObject("devices")
              .putArray("results");
      for (String device : d) {
        results
            .addObject()
            .put("request", "gpus")
            .put("driver", driver)
            .put("pool", NODE)
            .put("device", device);
      }
    }
    return claim.toString();
  }

  private void putClaim(String ns, String name, String uid, String... devices) {
    api.putClaim(ns, name, claimJson(ns, name, uid, DRIVER, devices));
  }

  static Claim claim(String ns, String name, String uid) {
    return Claim.newBuilder().setNamespace(ns).setName(name).setUid(uid).build();
  }

  private NodePrepareResourceResponse prepareV1(Claim c) {
    return StandInKubelet.prepareV1(
            endpoint, NodePrepareResourcesRequest.newBuilder().addClaims(c).build())
        .getClaimsOrThrow(c.getUid());
  }

  private String unprepareV1(Claim c) {
    return StandInKubelet.unprepareV1(
            endpoint, NodeUnprepareResourcesRequest.newBuilder().addClaims(c).build())
        .getClaimsOrThrow(c.getUid())
        .getError();
  }

  // ---- the agent's own endpoints ----

  private HttpResponse<String> agentGet(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + daemon.metricsServer().port() + path))
                .timeout(WAIT)
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private String body(String path) {
    try {
      return agentGet(path).body();
    } catch (Exception e) {
      return "";
    }
  }

  private int status(String path) {
    try {
      return agentGet(path).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }

  private Map<String, JsonNode> holders() throws Exception {
    Map<String, JsonNode> byId = new HashMap<>();
    for (JsonNode row : JSON.readTree(agentGet("/devices").body())) {
      byId.put(row.get("id").asText(), row);
    }
    return byId;
  }

  /** Polls {@code condition} every 5 ms for at most {@code within}, unscaled: a latency bound. */
  private static long within(Duration within, String what, BooleanSupplier condition)
      throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(what + ": not within " + within);
      }
      Thread.sleep(5);
    }
    return (System.nanoTime() - start) / 1_000_000;
  }

  /** A wait, not a latency bound: scaled with the machine's load, as every other test's. */
  private static void await(String what, BooleanSupplier condition) {
    Eventually.await(what, WAIT, condition);
  }

  private List<DeviceState> kubeletDevices() {
    return kubelet.devices(GPU);
  }

  private boolean kubeletSeesHeld(String uuid) {
    return kubeletDevices().stream().anyMatch(d -> d.id().equals(uuid) && !d.healthy());
  }

  // ---- Mesos ----

  private record Subscribed(
      MesosSchedulerClient client, MesosEventStream<Event> events, FrameworkID id, String stream) {
    MesosResponse call(io.acceld.proto.mesos.v1.scheduler.Call call) throws Exception {
      return client.call(call, Map.of("Mesos-Stream-Id", stream));
    }

    Offer nextOffer() {
      return events.awaitEvent(Event.Type.OFFERS, WAIT).getOffers().getOffers(0);
    }

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

  private Subscribed subscribed(String name) throws Exception {
    MesosSchedulerClient client =
        MesosSchedulerClient.of("127.0.0.1:" + daemon.mesos().orElseThrow().port(), MediaType.JSON);
    MesosEventStream<Event> events =
        client.subscribe(subscribe(framework(name, true), Optional.empty()));
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

  // ---- the checks, in order ----

  @Test
  @Order(1)
  void slicesArePublishedOnceTheApiServerAnswersAndOnlyThenIsTheAgentReady() throws Exception {
    api.down();
    startDaemon();
    kubelet.awaitDevices(
        GPU, l -> l.size() == 8 && l.stream().allMatch(DeviceState::healthy), WAIT);
    // The device plugin serves and the kubelet side registered; the slices cannot be written.
    await("/healthz says DRA is degraded", () -> body("/healthz").contains("degraded: DRA"));
    assertThat(status("/readyz")).isEqualTo(503);
    assertThat(body("/readyz")).contains("DRA slices not published");
    assertThat(daemon.dra().orElseThrow().registered()).isTrue();

    api.up();
    await("slices for all eight GPUs", () -> published().size() == 8);
    await("/readyz ok", () -> status("/readyz") == 200);
    await("/healthz no longer degraded", () -> !body("/healthz").contains("degraded"));

    Map<String, JsonNode> devices = publishedDevices();
    assertThat(api.slices(NODE, DRIVER))
        .allSatisfy(
            s -> {
              assertThat(s.path("spec").path("pool").path("name").asText()).isEqualTo(NODE);
              assertThat(s.path("spec").path("nodeName").asText()).isEqualTo(NODE);
            });
    for (int i = 0; i < 8; i++) {
      JsonNode d = devices.get(draName(i));
      assertThat(d).as(draName(i)).isNotNull();
      JsonNode attributes = d.path("attributes");
      assertThat(attributes.path("uuid").path("string").asText()).isEqualTo(gpu(i).uuid());
      assertThat(attributes.path("type").path("string").asText()).isEqualTo("gpu");
      assertThat(attributes.path("resource").path("string").asText()).isEqualTo(GPU);
      assertThat(attributes.path("resource.kubernetes.io/pciBusID").path("string").asText())
          .isEqualToIgnoringCase(gpu(i).pciAddress());
      assertThat(attributes.path("numaNode").path("int").asInt()).isEqualTo(gpu(i).numaNode());
      assertThat(attributes.has("driverVersion")).as("driverVersion").isTrue();
      assertThat(d.path("capacity").path("memory").path("value").asText()).isNotEmpty();
    }
  }

  @Test
  @Order(2)
  void preparesThroughV1AndV1beta1WithCdiSpecsAndUnpreparesAgain() throws Exception {
    putClaim("ml", "one", "uid-one", draName(0));
    putClaim("ml", "two", "uid-two", draName(1), draName(2));

    NodePrepareResourceResponse one = prepareV1(claim("ml", "one", "uid-one"));
    assertThat(one.getError()).isEmpty();
    assertThat(one.getDevicesList())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.getDeviceName()).isEqualTo(draName(0));
              assertThat(d.getPoolName()).isEqualTo(NODE);
              assertThat(d.getRequestNamesList()).containsExactly("gpus");
              assertThat(d.getCdiDeviceIdsList())
                  .containsExactly("k8s." + DRIVER + "/claim=uid-one-" + draName(0));
            });

    io.acceld.proto.dra.v1beta1.NodePrepareResourceResponse two =
        StandInKubelet.prepareV1beta1(
                endpoint,
                io.acceld.proto.dra.v1beta1.NodePrepareResourcesRequest.newBuilder()
                    .addClaims(
                        io.acceld.proto.dra.v1beta1.Claim.newBuilder()
                            .setNamespace("ml")
                            .setName("two")
                            .setUid("uid-two"))
                    .build())
            .getClaimsOrThrow("uid-two");
    assertThat(two.getError()).isEmpty();
    assertThat(two.getDevicesList())
        .extracting(io.acceld.proto.dra.v1beta1.Device::getDeviceName)
        .containsExactlyInAnyOrder(draName(1), draName(2));

    for (String uid : List.of("uid-one", "uid-two")) {
      Path spec = cdiDir().resolve("k8s." + DRIVER + "-claim_" + uid + ".json");
      JsonNode json = JSON.readTree(spec.toFile());
      assertThat(CdiSchemas.schema().validate(json)).as(spec.toString()).isEmpty();
      assertThat(json.get("kind").asText()).isEqualTo("k8s." + DRIVER + "/claim");
    }
    JsonNode specOne =
        JSON.readTree(cdiDir().resolve("k8s." + DRIVER + "-claim_uid-one.json").toFile());
    assertThat(specOne.get("devices").get(0).get("containerEdits").get("deviceNodes").toString())
        .contains("/dev/nvidia" + gpu(0).minor());
    assertThat(specOne.get("containerEdits").get("env").toString())
        .contains("NVIDIA_VISIBLE_DEVICES=" + gpu(0).uuid());

    // A claim's devices stay in the slices (the scheduler allocated them from there and knows
    // they are taken); the device plugin shows them held, and the CLI's listing says who.
    assertThat(published()).hasSize(8);
    await(
        "the device plugin shows them held",
        () -> kubeletSeesHeld(gpu(0).uuid()) && kubeletSeesHeld(gpu(2).uuid()));
    Map<String, JsonNode> rows = holders();
    assertThat(rows.get(gpu(0).uuid()).get("holderKind").asText()).isEqualTo("dra_claim");
    assertThat(rows.get(gpu(0).uuid()).get("holder").asText()).isEqualTo("ml/one");
    assertThat(rows.get(gpu(2).uuid()).get("holder").asText()).isEqualTo("ml/two");

    assertThat(unprepareV1(claim("ml", "one", "uid-one"))).isEmpty();
    assertThat(
            StandInKubelet.unprepareV1beta1(
                    endpoint,
                    io.acceld.proto.dra.v1beta1.NodeUnprepareResourcesRequest.newBuilder()
                        .addClaims(
                            io.acceld.proto.dra.v1beta1.Claim.newBuilder()
                                .setNamespace("ml")
                                .setName("two")
                                .setUid("uid-two"))
                        .build())
                .getClaimsOrThrow("uid-two")
                .getError())
        .isEmpty();
    assertThat(cdiDir().resolve("k8s." + DRIVER + "-claim_uid-one.json")).doesNotExist();
    assertThat(cdiDir().resolve("k8s." + DRIVER + "-claim_uid-two.json")).doesNotExist();
    await(
        "the device plugin offers them again",
        () ->
            kubeletDevices().size() == 8
                && kubeletDevices().stream().allMatch(DeviceState::healthy));
    assertThat(holders().get(gpu(0).uuid()).get("holderKind").asText()).isEqualTo("free");
    // Unprepare is idempotent: the kubelet retries it.
    assertThat(unprepareV1(claim("ml", "one", "uid-one"))).isEmpty();
  }

  @Test
  @Order(3)
  void badClaimsEachGetTheirOwnErrorWhileTheCallSucceeds() throws Exception {
    putClaim("ns", "good", "uid-good", draName(3));
    putClaim("ns", "replaced", "uid-new", draName(4));
    api.putClaim("ns", "pending", claimJson("ns", "pending", "uid-pending", DRIVER));
    api.putClaim(
        "ns", "theirs", claimJson("ns", "theirs", "uid-theirs", "other.example.com", "gpu-0"));
    api.putClaim(
        "ns",
        "elsewhere",
        claimJson("ns", "elsewhere", "uid-elsewhere", DRIVER, draName(5))
            .replace("\"pool\":\"" + NODE + "\"", "\"pool\":\"node-b\""));

    NodePrepareResourcesResponse answer =
        StandInKubelet.prepareV1(
            endpoint,
            NodePrepareResourcesRequest.newBuilder()
                .addClaims(claim("ns", "good", "uid-good"))
                .addClaims(claim("ns", "unknown", "uid-unknown"))
                .addClaims(claim("ns", "replaced", "uid-old"))
                .addClaims(claim("ns", "pending", "uid-pending"))
                .addClaims(claim("ns", "theirs", "uid-theirs"))
                .addClaims(claim("ns", "elsewhere", "uid-elsewhere"))
                .build());

    Map<String, NodePrepareResourceResponse> claims = answer.getClaimsMap();
    assertThat(claims).hasSize(6);
    assertThat(claims.get("uid-good").getError()).isEmpty();
    assertThat(claims.get("uid-good").getDevicesCount()).isEqualTo(1);
    assertThat(claims.get("uid-unknown").getError()).contains("ns/unknown").contains("not found");
    assertThat(claims.get("uid-old").getError()).contains("ns/replaced").contains("replaced");
    assertThat(claims.get("uid-pending").getError()).contains("ns/pending is not allocated");
    // Another driver's claim: its own error, naming both drivers; nothing leased.
    assertThat(claims.get("uid-theirs").getError())
        .contains("ns/theirs has no device allocated by driver gpu.acceld.io")
        .contains("other.example.com");
    assertThat(claims.get("uid-elsewhere").getError()).contains("\"node-b\"");
    Map<String, JsonNode> rows = holders();
    assertThat(rows.get(gpu(3).uuid()).get("holder").asText()).isEqualTo("ns/good");
    for (int i : List.of(0, 4, 5)) {
      assertThat(rows.get(gpu(i).uuid()).get("holderKind").asText())
          .as(draName(i))
          .isEqualTo("free");
    }
    assertThat(unprepareV1(claim("ns", "good", "uid-good"))).isEmpty();
  }

  @Test
  @Order(4)
  void aDeviceThePodHoldsLeavesTheSlicesAndAClaimForItFailsNamingThePod() throws Exception {
    String uuid = gpu(6).uuid();
    kubelet.allocateOne(GPU, List.of(uuid));
    long ms =
        within(
            WITHDRAWN, draName(6) + " leaves the slices", () -> !published().contains(draName(6)));
    putClaim("ns", "late", "uid-late", draName(6));
    NodePrepareResourceResponse late = prepareV1(claim("ns", "late", "uid-late"));
    assertThat(late.getError())
        .as("withdrawn in %d ms", ms)
        .contains("ns/late")
        .contains("pending kubelet allocation");
    assertThat(holders().get(uuid).get("holderKind").asText()).isEqualTo("kubelet_pending");
    // The pending lease stays (until the kubelet's pod list or its TTL ends it): gpu 6 stays out.
  }

  @Test
  @Order(5)
  void aDeviceAMesosTaskHoldsLeavesTheSlicesAndAClaimForItFailsNamingTheTask() throws Exception {
    Subscribed fw = subscribed("dra-it");
    Offer offer = fw.nextOffer();
    assertThat(scalarOf(offer, "gpus")).as("gpu 6 is the pod's").isEqualTo(7.0);
    assertThat(
            fw.call(
                    accept(
                        fw.id(),
                        offer,
                        List.of(
                            commandTask(
                                "t1",
                                offer.getAgentId(),
                                "exec sleep 120",
                                List.of(scalar("cpus", 0.1), scalar("gpus", 1))))))
                .status())
        .isEqualTo(202);
    TaskStatus running = fw.awaitState("t1", TaskState.TASK_RUNNING);
    int held = indexOfUuid(devicesOf(running).get(0));
    long ms =
        within(
            WITHDRAWN,
            draName(held) + " leaves the slices",
            () -> !published().contains(draName(held)));
    putClaim("ns", "racer", "uid-racer", draName(held));
    NodePrepareResourceResponse racer = prepareV1(claim("ns", "racer", "uid-racer"));
    assertThat(racer.getError())
        .as("withdrawn in %d ms", ms)
        .contains("ns/racer")
        .contains("Mesos task " + fw.id().getValue() + "/t1");

    assertThat(fw.call(kill(fw.id(), "t1")).status()).isEqualTo(202);
    fw.awaitState("t1", TaskState.TASK_KILLED);
    await("the task's GPU is published again", () -> published().contains(draName(held)));
    fw.events().close();
  }

  @Test
  @Order(6)
  void aClaimSurvivesARestartAndItsDeviceIsOfferedToNoOneMeanwhile() throws Exception {
    putClaim("ml", "keep", "uid-keep", draName(7));
    NodePrepareResourceResponse before = prepareV1(claim("ml", "keep", "uid-keep"));
    assertThat(before.getError()).isEmpty();
    String uuid = gpu(7).uuid();

    int registrations = kubelet.registrationHistory(GPU).size();
    stopDaemon();
    startDaemon();
    int sequence =
        kubelet
            .awaitRegistration(
                GPU, r -> kubelet.registrationHistory(GPU).size() > registrations, WAIT)
            .sequence();
    await("the restarted agent lists its devices", () -> kubeletSeesHeld(uuid));
    assertThat(holders().get(uuid).get("holder").asText()).isEqualTo("ml/keep");

    // Mesos is offered neither the claim's GPU nor the pod's.
    Subscribed fw = subscribed("after-restart");
    Offer offer = fw.nextOffer();
    assertThat(scalarOf(offer, "gpus")).as("eight less the claim's and the pod's").isEqualTo(6.0);
    // The kubelet is shown the claim's GPU held (its own pod's it knows of).
    assertThat(kubeletDevices())
        .filteredOn(d -> !d.healthy())
        .extracting(DeviceState::id)
        .containsExactly(uuid);
    fw.events().close();

    // The kubelet retries Prepare after the restart: the same answer, nothing new leased.
    NodePrepareResourceResponse again = prepareV1(claim("ml", "keep", "uid-keep"));
    assertThat(again).isEqualTo(before);
    assertThat(published()).contains(draName(7)).doesNotContain(draName(6)).hasSize(7);
    for (DeviceUpdate u : kubelet.updates(GPU)) {
      if (u.registration() >= sequence) {
        assertThat(u.devices())
            .as("every list since the restart shows %s held", uuid)
            .anyMatch(d -> d.id().equals(uuid) && !d.healthy());
      }
    }

    assertThat(unprepareV1(claim("ml", "keep", "uid-keep"))).isEmpty();
  }

  @Test
  @Order(7)
  void slicesTheKubeletDeletesAreWrittenAgain() throws Exception {
    Set<String> before = published();
    assertThat(before).isNotEmpty();
    api.deleteSlicesOf(NODE);
    assertThat(published()).isEmpty();
    within(Duration.ofSeconds(5), "the slices are written again", () -> published().equals(before));
  }

  @Test
  @Order(8)
  void anXidReachesTheHealthStreamAndTakesTheGpuOutOfTheSlices() throws Exception {
    HealthStream stream = draKubelet.watchHealth(endpoint);
    stream.await(
        WAIT,
        r ->
            r.getDevicesList().stream()
                .anyMatch(
                    d ->
                        d.getDevice().getDeviceName().equals(draName(5))
                            && d.getHealth() == HealthStatus.HEALTHY));
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      nvml.control().acceld_fake_inject_event(5, NvmlEventType.XID_CRITICAL_ERROR, 79);
      try {
        stream.await(
            Duration.ofMillis(250),
            r ->
                r.getDevicesList().stream()
                    .anyMatch(
                        d ->
                            d.getDevice().getDeviceName().equals(draName(5))
                                && d.getDevice().getPoolName().equals(NODE)
                                && d.getHealth() == HealthStatus.UNHEALTHY));
        break;
      } catch (AssertionError notYet) {
        if (System.nanoTime() > deadline) {
          throw notYet;
        }
      }
    }
    within(
        WITHDRAWN, "the unhealthy GPU leaves the slices", () -> !published().contains(draName(5)));
    await("the device plugin shows it unhealthy", () -> kubeletSeesHeld(gpu(5).uuid()));
    stream.cancel();
  }

  @Test
  @Order(9)
  void aRejectedTokenDegradesDraWhileTheDevicePluginKeepsServing() throws Exception {
    assertThat(body("/healthz")).doesNotContain("degraded");
    api.requireToken("rotated");
    api.dropWatches();
    await("/healthz says DRA is degraded", () -> body("/healthz").contains("degraded: DRA"));
    assertThat(body("/healthz")).containsIgnoringCase("401");
    assertThat(status("/healthz")).isEqualTo(200);
    // The device plugin still hands out GPUs.
    assertThat(kubelet.allocateOne(GPU, List.of(gpu(0).uuid())).getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", gpu(0).uuid());

    api.requireToken(TOKEN);
    api.dropWatches();
    await("DRA recovers", () -> !body("/healthz").contains("degraded"));
    await("gpu 0 leaves the slices", () -> !published().contains(draName(0)));
  }
}
