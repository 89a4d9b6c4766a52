package io.acceld.dra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryStore;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.ReplicaId;
import io.acceld.inventory.Topology;
import io.acceld.kube.ApiException;
import io.acceld.kube.KubeConfig;
import io.acceld.kube.KubeConfigLoader;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.testing.Eventually;
import io.acceld.testing.TestDevices;
import io.acceld.testing.kube.KubeApiDouble;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The slice publisher against the API-server double: what it writes, when, and how it recovers. */
class SlicePublisherTest {
  static final String DRIVER = "gpu.acceld.io";
  static final String NODE = "node-a";
  static final String NODE_UID = "6f1c1d2e-0000-4000-8000-000000000001";

  /** The defaults, but a short backoff so that recovery tests are quick. */
  static final DraApiSettings.Timings FAST =
      new DraApiSettings.Timings(
          Duration.ofSeconds(2),
          Duration.ofMillis(20),
          Duration.ofSeconds(1),
          Duration.ofMillis(100),
          Duration.ofMillis(800),
          Duration.ofMinutes(10));

  @TempDir Path dir;
  KubeApiDouble api;
  InventoryStore store;
  DeviceLedger ledger;
  SimpleMeterRegistry registry;
  SlicePublisher publisher;

  @BeforeEach
  void setUp() throws Exception {
    api = KubeApiDouble.start();
    api.addNode(NODE, NODE_UID);
    api.requireToken("s3cret");
    store = new InventoryStore();
    ledger = DeviceLedger.inMemory(Clock.systemUTC());
    store.subscribe(ledger);
    registry = new SimpleMeterRegistry();
  }

  @AfterEach
  void tearDown() {
    if (publisher != null) {
      publisher.close();
    }
    ledger.close();
    api.close();
  }

  void start() throws Exception {
    start(FAST);
  }

  void start(DraApiSettings.Timings timings) throws Exception {
    KubeConfig kube = KubeConfigLoader.fromFile(api.kubeconfig(dir, "s3cret"), "test");
    publisher =
        SlicePublisher.start(
            new DraApiSettings(DRIVER, NODE, kube, timings), ledger, registry, Clock.systemUTC());
  }

  static Inventory inventory(List<Device> devices) {
    return new Inventory(
        devices, new NodeInfo(Optional.of("580.95.05"), Optional.of("13.0")), Topology.EMPTY);
  }

  List<JsonNode> slices() {
    return api.slices(NODE, DRIVER);
  }

  Set<String> published() {
    Set<String> names = new HashSet<>();
    slices()
        .forEach(
            s -> s.path("spec").path("devices").forEach(d -> names.add(d.path("name").asText())));
    return names;
  }

  static JsonNode device(JsonNode slice, String name) {
    for (JsonNode d : slice.path("spec").path("devices")) {
      if (d.path("name").asText().equals(name)) {
        return d;
      }
    }
    throw new AssertionError("no device " + name + " in " + slice);
  }

  @Test
  void publishesTheNodesDevicesWithAttributesPoolAndOwner() throws Exception {
    store.publish(
        inventory(
            List.of(
                TestDevices.nvidia(0, 0),
                TestDevices.nvidia(1, 1),
                TestDevices.mig(2, 3, "3g.40gb"),
                TestDevices.amd(0, 0))));
    start();
    Eventually.await("one slice with four devices", () -> published().size() == 4);
    JsonNode slice = slices().get(0);
    assertThat(slice.path("metadata").path("name").asText()).startsWith(NODE + "-" + DRIVER + "-");
    assertThat(slice.path("metadata").path("labels").path("app.kubernetes.io/managed-by").asText())
        .isEqualTo("acceld");
    JsonNode owner = slice.path("metadata").path("ownerReferences").get(0);
    assertThat(owner.path("kind").asText()).isEqualTo("Node");
    assertThat(owner.path("apiVersion").asText()).isEqualTo("v1");
    assertThat(owner.path("name").asText()).isEqualTo(NODE);
    assertThat(owner.path("uid").asText()).isEqualTo(NODE_UID);
    assertThat(owner.path("controller").asBoolean()).isTrue();
    JsonNode spec = slice.path("spec");
    assertThat(spec.path("driver").asText()).isEqualTo(DRIVER);
    assertThat(spec.path("nodeName").asText()).isEqualTo(NODE);
    assertThat(spec.path("pool").path("name").asText()).isEqualTo(NODE);
    assertThat(spec.path("pool").path("generation").asLong()).isEqualTo(1);
    assertThat(spec.path("pool").path("resourceSliceCount").asLong()).isEqualTo(1);
    assertThat(published())
        .containsExactlyInAnyOrder("gpu-0", "gpu-1", "gpu-2-mig-3-0", "amd-gpu-0");

    JsonNode gpu = device(slice, "gpu-1").path("attributes");
    assertThat(gpu.path("type").path("string").asText()).isEqualTo("gpu");
    assertThat(gpu.path("resource").path("string").asText()).isEqualTo("nvidia.com/gpu");
    assertThat(gpu.path("vendor").path("string").asText()).isEqualTo("nvidia");
    assertThat(gpu.path("productName").path("string").asText()).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(gpu.path("uuid").path("string").asText()).isEqualTo(TestDevices.uuid(1));
    assertThat(gpu.path("driverVersion").path("version").asText()).isEqualTo("580.95.5");
    assertThat(gpu.path("cudaComputeCapability").path("version").asText()).isEqualTo("9.0.0");
    assertThat(gpu.path("numaNode").path("int").asInt()).isEqualTo(1);
    assertThat(gpu.path("resource.kubernetes.io/pciBusID").path("string").asText())
        .isEqualTo("0000:19:00.0");
    assertThat(device(slice, "gpu-1").path("capacity").path("memory").path("value").asText())
        .isEqualTo("81559Mi"); // 85,520,809,984 bytes, canonical

    JsonNode mig = device(slice, "gpu-2-mig-3-0").path("attributes");
    assertThat(mig.path("type").path("string").asText()).isEqualTo("mig");
    assertThat(mig.path("profile").path("string").asText()).isEqualTo("3g.40gb");
    assertThat(mig.path("migProfile").path("string").asText()).isEqualTo("3g.40gb");
    assertThat(mig.path("parentUUID").path("string").asText()).isEqualTo(TestDevices.uuid(2));
    assertThat(
            device(slice, "gpu-2-mig-3-0").path("capacity").path("memory").path("value").asText())
        .isEqualTo("9856Mi");

    JsonNode amd = device(slice, "amd-gpu-0").path("attributes");
    assertThat(amd.path("vendor").path("string").asText()).isEqualTo("amd");
    assertThat(amd.path("type").path("string").asText()).isEqualTo("gpu");
    assertThat(amd.has("uuid")).isFalse();
    Eventually.await("published", () -> publisher.status().published());
    assertThat(publisher.status().notReady()).isEmpty();
    assertThat(publisher.status().degraded()).isEmpty();
  }

  @Test
  void aDeviceLeasedByTheKubeletOrMesosLeavesWithinASecondAndComesBack() throws Exception {
    store.publish(
        inventory(
            List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0), TestDevices.nvidia(2, 0))));
    start();
    Eventually.await("three devices", () -> published().size() == 3);
    Holder pod = new Holder.KubeletPod("ns", "pod", "c");
    Holder task = new Holder.MesosTask("fw", "t1");
    Holder claim = new Holder.DraClaim("ns", "claim", "uid-1");
    assertThat(ledger.lease(pod, List.of(ReplicaId.whole(TestDevices.uuid(0))), "test").granted())
        .isTrue();
    assertThat(ledger.lease(task, List.of(ReplicaId.whole(TestDevices.uuid(1))), "test").granted())
        .isTrue();
    assertThat(ledger.lease(claim, List.of(ReplicaId.whole(TestDevices.uuid(2))), "test").granted())
        .isTrue();
    Eventually.await(
        "the kubelet's and Mesos's devices gone, the claim's kept",
        Duration.ofSeconds(2), // one second after the last round, plus the settle time
        () -> published().equals(Set.of("gpu-2")));
    ledger.release(pod);
    ledger.release(task);
    Eventually.await("both back", Duration.ofSeconds(2), () -> published().size() == 3);
    long generation = slices().get(0).path("spec").path("pool").path("generation").asLong();
    assertThat(generation).isGreaterThanOrEqualTo(3);
  }

  @Test
  void closeEndsBothThreadsWhileTheServerHangs() throws Exception {
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0))));
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    start();
    Eventually.await("published", () -> publisher.status().published());
    // A server that stopped answering: the next write and the next watch hang in their requests
    api.resetCounts();
    api.delay(Duration.ofSeconds(30));
    api.dropWatches();
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0))));
    Eventually.await("both requests under way", () -> api.requests() >= 2);
    publisher.close();
    // close joins its writer and its watcher (up to 5 s each); ended, not waited out, they are
    // gone the moment it returns
    assertThat(newThreads(before, "acceld-dra-slices-", "acceld-dra-watch-")).isEmpty();
    // The API client's deadline thread is ended and awaited too, but a pool reports itself
    // terminated from its last thread, a moment before that thread is gone.
    Eventually.await(
        "the API client's threads gone",
        () -> newThreads(before, "acceld-dra-", "acceld-kube-").isEmpty());
  }

  private static List<String> newThreads(Set<Thread> before, String... prefixes) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && !before.contains(t))
        .map(Thread::getName)
        .filter(n -> java.util.Arrays.stream(prefixes).anyMatch(n::startsWith))
        .toList();
  }

  @Test
  void anUnhealthyDeviceLeavesAndComesBack() throws Exception {
    Device gpu = TestDevices.nvidia(0, 0);
    store.publish(inventory(List.of(gpu, TestDevices.nvidia(1, 0))));
    start();
    Eventually.await("two devices", () -> published().size() == 2);
    store.publish(
        inventory(
            List.of(
                gpu.withHealth(Health.UNHEALTHY, Optional.of("XID 79")),
                TestDevices.nvidia(1, 0))));
    Eventually.await(
        "gpu-0 gone", Duration.ofSeconds(1), () -> published().equals(Set.of("gpu-1")));
    store.publish(inventory(List.of(gpu, TestDevices.nvidia(1, 0))));
    Eventually.await("gpu-0 back", Duration.ofSeconds(2), () -> published().size() == 2);
  }

  @Test
  void slicesSomeoneDeletesAreRecreatedWithinFiveSeconds() throws Exception {
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0))));
    start();
    Eventually.await("published", () -> publisher.status().published());
    String first = slices().get(0).path("metadata").path("name").asText();
    api.deleteSlicesOf(NODE); // the kubelet, starting
    assertThat(slices()).isEmpty();
    Eventually.await("recreated", Duration.ofSeconds(5), () -> published().equals(Set.of("gpu-0")));
    assertThat(slices().get(0).path("metadata").path("name").asText()).isNotEqualTo(first);
  }

  @Test
  void aDroppedWatchResumesFromItsResourceVersionWithoutListing() throws Exception {
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0))));
    start();
    Eventually.await("published", () -> publisher.status().published());
    Eventually.await("watching", () -> api.openWatches() == 1);
    long lists = api.requests("list");
    long watches = api.requests("watch");
    api.dropWatches();
    Eventually.await(
        "watching again", () -> api.requests("watch") > watches && api.openWatches() == 1);
    assertThat(api.requests("list")).isEqualTo(lists);
    // The resumed watch still sees deletions.
    api.deleteSlicesOf(NODE);
    Eventually.await("recreated", Duration.ofSeconds(5), () -> published().size() == 2);
    assertThat(publisher.metrics().watchRestarts()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void aWatchFromACompactedVersionListsAgain() throws Exception {
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0))));
    start();
    Eventually.await("published", () -> publisher.status().published());
    Eventually.await("watching", () -> api.openWatches() == 1);
    long lists = api.requests("list");
    // Changes the watch has not seen, then history gone: its resourceVersion is too old.
    api.down();
    api.deleteSlicesOf(NODE);
    api.compact();
    api.up();
    Eventually.await("listed again", () -> api.requests("list") > lists);
    Eventually.await("recreated", Duration.ofSeconds(5), () -> published().equals(Set.of("gpu-0")));
  }

  @Test
  void anApiServerThatIsDownIsRetriedWithBackoffAndReported() throws Exception {
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0))));
    start();
    Eventually.await("published", () -> publisher.status().published());
    api.down();
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0))));
    Eventually.await("degraded", () -> publisher.status().degraded().isPresent());
    assertThat(publisher.status().degraded().get())
        .startsWith("DRA: ")
        .contains("connection failed");
    api.up();
    Eventually.await("recovered", Duration.ofSeconds(3), () -> published().size() == 2);
    Eventually.await("no error", () -> publisher.status().lastError().isEmpty());
    assertThat(publisher.metrics().errors(ApiException.Kind.CONNECTION)).isPositive();
  }

  @ParameterizedTest
  @ValueSource(ints = {401, 403, 409, 422, 500})
  void refusalsAreRetriedWithBackoffNotInALoop(int status) throws Exception {
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0))));
    // A backoff of 20 ms doubling to 160 ms: the rate is measured in a window of 0.3 s, not
    // seconds, for each of the five refusals.
    start(
        new DraApiSettings.Timings(
            FAST.requestTimeout(),
            FAST.settle(),
            FAST.minWriteInterval(),
            Duration.ofMillis(20),
            Duration.ofMillis(160),
            FAST.watchTimeout()));
    Eventually.await("published", () -> publisher.status().published());
    api.failWith(status);
    api.resetCounts();
    api.dropWatches();
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0))));
    Eventually.await("degraded", () -> publisher.status().degraded().isPresent());
    assertThat(publisher.status().lastError().get()).contains("HTTP " + status);
    // Two loops (writes and the watch), each retrying after 20, 40, 80, 160, 160 ms: in 0.3 s at
    // most 2 x 5 requests, and one more each already under way; a loop without backoff would make
    // hundreds.
    long before = api.requests();
    Thread.sleep(300); // measuring a rate: the time is the point
    assertThat(api.requests() - before).isLessThanOrEqualTo(12);
    api.failWith(0);
    Eventually.await("recovered", Duration.ofSeconds(3), () -> published().size() == 2);
    Eventually.await("no error", () -> publisher.status().lastError().isEmpty());
  }

  @Test
  void moreThan128DevicesMakeTwoSlicesOfOnePool() throws Exception {
    List<Device> devices = new ArrayList<>();
    IntStream.range(0, 129).forEach(i -> devices.add(TestDevices.nvidia(i, 0)));
    store.publish(inventory(devices));
    start();
    Eventually.await("129 devices", () -> published().size() == 129);
    List<JsonNode> slices = slices();
    assertThat(slices).hasSize(2);
    assertThat(slices)
        .allSatisfy(
            s ->
                assertThat(s.path("spec").path("pool").path("resourceSliceCount").asInt())
                    .isEqualTo(2));
    assertThat(
            slices.stream().mapToInt(s -> s.path("spec").path("devices").size()).sorted().toArray())
        .containsExactly(1, 128);
    long generation = slices.get(0).path("spec").path("pool").path("generation").asLong();
    assertThat(slices.get(1).path("spec").path("pool").path("generation").asLong())
        .isEqualTo(generation);

    // One leaves: one slice is enough; the other is deleted, the generation bumped.
    List<Device> fewer = new ArrayList<>(devices);
    fewer.set(5, devices.get(5).withHealth(Health.UNHEALTHY, Optional.of("gone")));
    store.publish(inventory(fewer));
    Eventually.await(
        "one slice",
        Duration.ofSeconds(2),
        () -> slices().size() == 1 && published().size() == 128);
    JsonNode one = slices().get(0);
    assertThat(one.path("spec").path("pool").path("resourceSliceCount").asInt()).isEqualTo(1);
    assertThat(one.path("spec").path("pool").path("generation").asLong()).isGreaterThan(generation);
  }

  @Test
  void aRestartWithNothingChangedWritesNothing() throws Exception {
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0))));
    start();
    Eventually.await("published", () -> publisher.status().published());
    publisher.close();
    api.resetCounts();
    start();
    Eventually.await("published again", () -> publisher.status().published());
    assertThat(api.requests("create") + api.requests("update") + api.requests("delete")).isZero();
  }

  @Test
  void aNodeWithNothingFreePublishesAnEmptyPoolAndThenStaysQuiet() throws Exception {
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0))));
    start();
    Eventually.await("published", () -> published().size() == 1);
    Holder pod = new Holder.KubeletPod("ns", "pod", "c");
    assertThat(ledger.lease(pod, List.of(ReplicaId.whole(TestDevices.uuid(0))), "t").granted())
        .isTrue();
    Eventually.await(
        "an empty pool",
        Duration.ofSeconds(2),
        () -> slices().size() == 1 && slices().get(0).path("spec").path("devices").isEmpty());
    assertThat(slices().get(0).path("spec").path("pool").path("resourceSliceCount").asInt())
        .isEqualTo(1);
    api.resetCounts();
    // Unrelated ledger changes (a DRA lease elsewhere would be one) must not rewrite an equal pool.
    store.publish(
        inventory(
            List.of(
                TestDevices.nvidia(0, 0),
                TestDevices.nvidia(1, 0).withHealth(Health.UNHEALTHY, Optional.of("x")))));
    Thread.sleep(2500); // proving nothing happens: the time is the point
    assertThat(api.requests("update") + api.requests("create")).isZero();
  }

  @Test
  void fieldsTheServerDefaultsDoNotCauseRewrites() throws Exception {
    api.defaulting(
        s -> {
          s.with("spec").put("perDeviceNodeSelection", (String) null);
          s.with("spec")
              .withArray("devices")
              .forEach(d -> ((ObjectNode) d).put("allowMultipleAllocations", false));
        });
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0))));
    start();
    Eventually.await("published", () -> publisher.status().published());
    api.resetCounts();
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0))));
    Eventually.await(
        "gpu-1 gone", Duration.ofSeconds(2), () -> published().equals(Set.of("gpu-0")));
    Thread.sleep(2500); // proving nothing more happens: the time is the point
    assertThat(api.requests("update")).isEqualTo(1);
  }

  @Test
  void someoneElsesChangeIsPutRightAfterAConflict() throws Exception {
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 0))));
    start();
    Eventually.await("published", () -> publisher.status().published());
    String name = slices().get(0).path("metadata").path("name").asText();
    api.down(); // so that our cache misses the change and our PUT carries an old resourceVersion
    api.modifySlice(name, s -> s.with("spec").withArray("devices").remove(0));
    api.up();
    store.publish(inventory(List.of(TestDevices.nvidia(0, 0))));
    Eventually.await(
        "ours again", Duration.ofSeconds(5), () -> published().equals(Set.of("gpu-0")));
  }

  @Test
  void writesAtMostOnceASecondWhileADeviceFlaps() throws Exception {
    Device gpu = TestDevices.nvidia(0, 0);
    Device sick = gpu.withHealth(Health.UNHEALTHY, Optional.of("flap"));
    store.publish(inventory(List.of(gpu, TestDevices.nvidia(1, 0))));
    start();
    Eventually.await("published", () -> publisher.status().published());
    api.resetCounts();
    long start = System.nanoTime();
    for (int i = 0; i < 40; i++) {
      store.publish(inventory(List.of(i % 2 == 0 ? sick : gpu, TestDevices.nvidia(1, 0))));
      Thread.sleep(50); // the flapping device: the time is the point
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long writes = api.requests("update") + api.requests("create");
    assertThat(writes).isLessThanOrEqualTo((long) Math.ceil(seconds) + 1);
    Eventually.await(
        "settled on the last state", Duration.ofSeconds(2), () -> published().size() == 2);
  }
}
