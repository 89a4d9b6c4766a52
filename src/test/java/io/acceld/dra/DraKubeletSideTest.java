package io.acceld.dra;

import static io.acceld.dra.DraNode.DRIVER;
import static io.acceld.dra.DraNode.NODE;
import static io.acceld.dra.DraNode.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceld.dra.StandInKubelet.HealthStream;
import io.acceld.dra.StandInKubelet.Registered;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.ledger.LeaseResult;
import io.acceld.proto.dra.v1.Claim;
import io.acceld.proto.dra.v1.Device;
import io.acceld.proto.dra.v1.NodePrepareResourceResponse;
import io.acceld.proto.dra.v1.NodePrepareResourcesRequest;
import io.acceld.proto.dra.v1.NodePrepareResourcesResponse;
import io.acceld.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.acceld.proto.drahealth.v1alpha1.DeviceHealth;
import io.acceld.proto.drahealth.v1alpha1.HealthStatus;
import io.acceld.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.acceld.testing.CdiSchemas;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.TestDevices;
import io.acceld.testing.Waits;
import io.acceld.transport.PluginRegistrationService;
import io.acceld.transport.UnixGrpc;
import io.grpc.ManagedChannel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubelet side of DRA against a stand-in kubelet on the real sockets: registration, prepare and
 * unprepare through both API versions, conflicts with the other publishers' leases, bad claims, a
 * restart over the same state directory, CDI specs and the health stream.
 */
class DraKubeletSideTest {
  static final String UID_A = "8a0d5c1e-0000-4000-8000-00000000000a";
  static final String UID_B = "8a0d5c1e-0000-4000-8000-00000000000b";
  static final Duration WAIT = Duration.ofSeconds(5);

  @TempDir Path root;
  private final ObjectMapper json = new ObjectMapper();
  private DraNode node;
  private StandInKubelet kubelet;

  @AfterEach
  void tearDown() {
    if (kubelet != null) {
      kubelet.close();
    }
    if (node != null) {
      node.close();
    }
  }

  private ManagedChannel registered() throws Exception {
    return registered(Duration.ofSeconds(10));
  }

  private ManagedChannel registered(Duration healthPeriod) throws Exception {
    node = new DraNode(root, healthPeriod);
    kubelet = new StandInKubelet(node.settings.pluginsRegistryDir());
    return kubelet.register(WAIT).endpoint();
  }

  static Claim claim(String namespace, String name, String uid) {
    return Claim.newBuilder().setNamespace(namespace).setName(name).setUid(uid).build();
  }

  static NodePrepareResourcesRequest prepare(Claim... claims) {
    return NodePrepareResourcesRequest.newBuilder().addAllClaims(List.of(claims)).build();
  }

  static NodeUnprepareResourcesRequest unprepare(Claim... claims) {
    return NodeUnprepareResourcesRequest.newBuilder().addAllClaims(List.of(claims)).build();
  }

  private List<Lease> leasesOf(String uid) {
    return node.ledger().current().leases().stream()
        .filter(l -> l.holder() instanceof Holder.DraClaim c && c.uid().equals(uid))
        .toList();
  }

  private Path specFile(String uid) {
    return node.settings.cdiDir().resolve("k8s." + DRIVER + "-claim_" + uid + ".json");
  }

  @Test
  void registersThroughPluginWatcherWithItsVersionsInOrderOnOwnerOnlySockets() throws Exception {
    node = new DraNode(root);
    kubelet = new StandInKubelet(node.settings.pluginsRegistryDir());
    Registered r = kubelet.register(WAIT);

    assertThat(r.socket())
        .isEqualTo(node.settings.pluginsRegistryDir().resolve(DRIVER + "-reg.sock"));
    assertThat(r.info().getName()).isEqualTo(DRIVER);
    assertThat(r.info().getEndpoint())
        .isEqualTo(
            node.settings.kubeletPluginsDir().resolve(DRIVER).resolve("dra.sock").toString());
    assertThat(r.info().getSupportedVersionsList())
        .containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth");
    assertThat(r.version()).isEqualTo("v1.DRAPlugin");
    Eventually.await("the plugin hears it is registered", () -> node.side.registered());
    for (Path socket : List.of(r.socket(), Path.of(r.info().getEndpoint()))) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)))
          .as(socket.toString())
          .isEqualTo("rw-------");
    }

    try (LogCapture log = LogCapture.of(PluginRegistrationService.class)) {
      kubelet.reject(r.socket(), "driver name \"\u001b[31m\" taken" + "!".repeat(10_000));
      Eventually.await("a rejection is heard", () -> !node.side.registered());
      assertThat(log.warnings())
          .singleElement()
          .asString()
          .contains("rejected DRA driver " + DRIVER)
          .doesNotContain("\u001b")
          .hasSizeLessThan(1000);
    }
  }

  @Test
  void aSecondAgentOnTheSameSocketsFailsAndLeavesTheFirstServing() throws Exception {
    ManagedChannel endpoint = registered();
    node.claims.put("ns", "held", UID_B, result("gpu", "gpu-1"));
    StandInKubelet.prepareV1(endpoint, prepare(claim("ns", "held", UID_B)));
    DeviceLedger other = DeviceLedger.inMemory(node.clock); // knows no claim
    try (UnixGrpc grpc = new UnixGrpc("acceld-dra-second", 1)) {
      assertThatThrownBy(
              () ->
                  DraKubeletSide.start(
                      node.settings,
                      other,
                      node.inventory,
                      node.claims,
                      new SimpleMeterRegistry(),
                      node.clock,
                      grpc))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("another acceld")
          .hasMessageContaining("dra.sock");
    } finally {
      other.close();
    }
    assertThat(specFile(UID_B)).as("the first agent's spec").exists();
    node.claims.put("ns", "c", UID_A, result("gpu", "gpu-0"));
    assertThat(
            StandInKubelet.prepareV1(endpoint, prepare(claim("ns", "c", UID_A)))
                .getClaimsOrThrow(UID_A)
                .getError())
        .isEmpty();
  }

  @Test
  void closeLeavesNoThreadAndNoSocketBehind() throws Exception {
    ManagedChannel endpoint = registered(Duration.ofMillis(100));
    HealthStream stream = kubelet.watchHealth(endpoint);
    stream.await(WAIT, r -> true);
    Path dra = node.side.draSocket();
    Path registration = node.side.registrationSocket();

    node.close();
    node = null;

    assertThat(dra).doesNotExist();
    assertThat(registration).doesNotExist();
    Eventually.await(
        "every acceld-dra thread has ended",
        () ->
            Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("acceld-dra")));
    Eventually.await("the kubelet sees its stream end", () -> !stream.ended.isEmpty());
  }

  @Test
  void aDeletedSocketIsServedAgain() throws Exception {
    ManagedChannel endpoint = registered();
    Path dra = node.side.draSocket();
    Files.delete(node.side.registrationSocket());
    Files.delete(dra);

    // the directory watch notices; the stand-in kubelet waits for the registration socket
    kubelet.register(WAIT);
    Eventually.await("the DRA socket is back", () -> Files.exists(dra));
    node.claims.put("ns", "c", UID_A, result("gpu", "gpu-0"));
    assertThat(StandInKubelet.prepareV1(endpoint, prepare(claim("ns", "c", UID_A))).getClaimsMap())
        .containsKey(UID_A);
  }

  @Test
  void preparesOneDeviceLeasingItAndWritingAValidCdiSpec() throws Exception {
    ManagedChannel endpoint = registered();
    node.claims.put("ml", "gpu-claim", UID_A, result("gpu", "gpu-0"));

    NodePrepareResourcesResponse answer =
        StandInKubelet.prepareV1(endpoint, prepare(claim("ml", "gpu-claim", UID_A)));

    NodePrepareResourceResponse claim = answer.getClaimsOrThrow(UID_A);
    assertThat(claim.getError()).isEmpty();
    assertThat(claim.getDevicesList())
        .containsExactly(
            Device.newBuilder()
                .addRequestNames("gpu")
                .setPoolName(NODE)
                .setDeviceName("gpu-0")
                .addCdiDeviceIds("k8s." + DRIVER + "/claim=" + UID_A + "-gpu-0")
                .build());
    assertThat(leasesOf(UID_A))
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.slot()).isEqualTo(ReplicaId.whole(node.devices.get(0).id()));
              assertThat(l.holder()).isEqualTo(new Holder.DraClaim("ml", "gpu-claim", UID_A));
            });

    JsonNode spec = json.readTree(specFile(UID_A).toFile());
    assertThat(CdiSchemas.schema().validate(spec)).isEmpty();
    assertThat(spec.get("kind").asText()).isEqualTo("k8s." + DRIVER + "/claim");
    JsonNode device = spec.get("devices").get(0);
    assertThat(device.get("name").asText()).isEqualTo(UID_A + "-gpu-0");
    assertThat(device.get("containerEdits").get("deviceNodes").findValuesAsText("path"))
        .contains("/dev/nvidia0", "/dev/nvidiactl");
    assertThat(spec.get("containerEdits").get("env").get(0).asText())
        .isEqualTo("NVIDIA_VISIBLE_DEVICES=" + node.devices.get(0).id());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(specFile(UID_A))))
        .isEqualTo("rw-r--r--");
    assertThat(node.registry.get("acceld.dra.prepared.claims").gauge().value()).isEqualTo(1);
    assertThat(node.registry.get("acceld.dra.prepare").timer().count()).isEqualTo(1);
  }

  @Test
  void preparesSeveralDevicesThroughV1beta1AndAnswersTheSameWhenAskedAgain() throws Exception {
    ManagedChannel endpoint = registered();
    node.claims.put("ml", "pair", UID_A, result("gpus/big", "gpu-1"), result("gpus/big", "gpu-0"));
    var request =
        io.acceld.proto.dra.v1beta1.NodePrepareResourcesRequest.newBuilder()
            .addClaims(
                io.acceld.proto.dra.v1beta1.Claim.newBuilder()
                    .setNamespace("ml")
                    .setName("pair")
                    .setUid(UID_A))
            .build();

    var first = StandInKubelet.prepareV1beta1(endpoint, request);
    var again = StandInKubelet.prepareV1beta1(endpoint, request);

    var claim = first.getClaimsOrThrow(UID_A);
    assertThat(claim.getError()).isEmpty();
    assertThat(claim.getDevicesList())
        .extracting(d -> d.getDeviceName() + ":" + d.getRequestNamesList())
        .containsExactly("gpu-1:[gpus]", "gpu-0:[gpus]");
    assertThat(again).isEqualTo(first);
    assertThat(leasesOf(UID_A)).hasSize(2);
    JsonNode spec = json.readTree(specFile(UID_A).toFile());
    assertThat(CdiSchemas.schema().validate(spec)).isEmpty();
    assertThat(spec.get("devices").findValuesAsText("name"))
        .containsExactly(UID_A + "-gpu-1", UID_A + "-gpu-0");
    // nvidiactl and friends, which both need, are said once for the claim
    assertThat(spec.get("containerEdits").get("deviceNodes").findValuesAsText("path"))
        .contains("/dev/nvidiactl")
        .doesNotContain("/dev/nvidia0", "/dev/nvidia1");
  }

  @Test
  void aDeviceThePodSideOrMesosHoldsFailsTheClaimNamingTheHolder() throws Exception {
    ManagedChannel endpoint = registered();
    String gpu0 = node.devices.get(0).id();
    String gpu1 = node.devices.get(1).id();
    assertThat(
            node.ledger()
                .lease(
                    new Holder.KubeletPod("default", "trainer", "main"),
                    List.of(ReplicaId.whole(gpu0)),
                    "Allocate")
                .granted())
        .isTrue();
    assertThat(
            node.ledger()
                .lease(new Holder.MesosTask("fw-1", "task-7"), List.of(ReplicaId.whole(gpu1)), "o")
                .granted())
        .isTrue();
    node.claims.put("ml", "one", UID_A, result("gpu", "gpu-0"));
    node.claims.put("ml", "two", UID_B, result("gpu", "gpu-1"), result("gpu", "gpu-0"));

    Map<String, NodePrepareResourceResponse> answer =
        StandInKubelet.prepareV1(
                endpoint, prepare(claim("ml", "one", UID_A), claim("ml", "two", UID_B)))
            .getClaimsMap();

    assertThat(answer.get(UID_A).getError()).contains("pod default/trainer/main");
    assertThat(answer.get(UID_B).getError())
        .contains("Mesos task fw-1/task-7")
        .contains("pod default/trainer/main");
    assertThat(leasesOf(UID_A)).isEmpty();
    assertThat(leasesOf(UID_B)).isEmpty();
    assertThat(specFile(UID_A)).doesNotExist();
    assertThat(
            node.registry
                .get("acceld.dra.prepare.errors")
                .tag("reason", "conflict")
                .counter()
                .count())
        .isEqualTo(2);
  }

  @Test
  void twoClaimsRacingForOneDeviceGetItOnce() throws Exception {
    ManagedChannel endpoint = registered();
    int claims = 8;
    for (int i = 0; i < claims; i++) {
      node.claims.put("ns", "race-" + i, "uid-" + i, result("gpu", "gpu-0"));
    }
    ExecutorService pool = Executors.newFixedThreadPool(claims);
    try {
      List<Future<NodePrepareResourcesResponse>> answers = new ArrayList<>();
      for (int i = 0; i < claims; i++) {
        Claim c = claim("ns", "race-" + i, "uid-" + i);
        answers.add(pool.submit(() -> StandInKubelet.prepareV1(endpoint, prepare(c))));
      }
      int granted = 0;
      for (int i = 0; i < claims; i++) {
        NodePrepareResourceResponse a =
            Waits.get(answers.get(i), WAIT).getClaimsOrThrow("uid-" + i);
        if (a.getError().isEmpty()) {
          granted++;
        } else {
          assertThat(a.getError()).contains("is held by DRA claim ns/race-");
        }
      }
      assertThat(granted).isEqualTo(1);
      assertThat(node.ledger().current().leases()).hasSize(1);
      try (var specs = Files.list(node.settings.cdiDir())) {
        assertThat(specs.filter(p -> !p.getFileName().toString().startsWith("."))).hasSize(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aMigDeviceAndItsWholeGpuAreNeverPreparedForTwoClaims() throws Exception {
    ManagedChannel endpoint = registered();
    node.devices =
        List.of(
            TestDevices.nvidia(0, 0),
            TestDevices.mig(0, 1, "3g.40gb"),
            TestDevices.mig(0, 2, "3g.40gb"));
    node.publish();
    node.claims.put("ns", "mig", UID_A, result("slice", "gpu-0-mig-1-0"));
    node.claims.put("ns", "whole", UID_B, result("gpu", "gpu-0"));

    NodePrepareResourceResponse mig =
        StandInKubelet.prepareV1(endpoint, prepare(claim("ns", "mig", UID_A)))
            .getClaimsOrThrow(UID_A);
    NodePrepareResourceResponse whole =
        StandInKubelet.prepareV1(endpoint, prepare(claim("ns", "whole", UID_B)))
            .getClaimsOrThrow(UID_B);

    assertThat(mig.getError()).isEmpty();
    assertThat(mig.getDevices(0).getCdiDeviceIds(0)).endsWith("=" + UID_A + "-gpu-0-mig-1-0");
    assertThat(whole.getError()).contains("shares its GPU").contains("DRA claim ns/mig");
    JsonNode spec = json.readTree(specFile(UID_A).toFile());
    assertThat(CdiSchemas.schema().validate(spec)).isEmpty();
    assertThat(spec.findValuesAsText("path")).anyMatch(p -> p.startsWith("/dev/nvidia-caps/"));
  }

  @Test
  void badClaimsFailAloneAndEveryClaimGetsAnAnswer() throws Exception {
    ManagedChannel endpoint = registered();
    node.claims.put("ns", "good", "uid-good", result("gpu", "gpu-0"));
    node.claims.put("ns", "replaced", "uid-new", result("gpu", "gpu-1"));
    node.claims.put(new AllocatedClaim("ns", "pending", "uid-pending", false, List.of()));
    node.claims.put(
        "ns",
        "other-driver",
        "uid-other",
        new AllocatedClaim.Result("gpu", "gpu.nvidia.com", NODE, "gpu-1"));
    node.claims.put(
        "ns",
        "other-pool",
        "uid-pool",
        new AllocatedClaim.Result("gpu", DRIVER, "node-b", "gpu-1"));
    node.claims.put("ns", "no-such-device", "uid-nodev", result("gpu", "gpu-9"));

    Map<String, NodePrepareResourceResponse> answer =
        StandInKubelet.prepareV1(
                endpoint,
                prepare(
                    claim("ns", "good", "uid-good"),
                    claim("ns", "missing", "uid-missing"),
                    claim("ns", "replaced", "uid-old"),
                    claim("ns", "pending", "uid-pending"),
                    claim("ns", "other-driver", "uid-other"),
                    claim("ns", "other-pool", "uid-pool"),
                    claim("ns", "no-such-device", "uid-nodev"),
                    claim("", "empty-namespace", "uid-empty"),
                    claim("ns", "x".repeat(300), "uid-long")))
            .getClaimsMap();

    assertThat(answer).hasSize(9);
    assertThat(answer.get("uid-good").getError()).isEmpty();
    assertThat(answer.get("uid-good").getDevicesCount()).isEqualTo(1);
    assertThat(answer.get("uid-missing").getError())
        .contains("cannot read ResourceClaim ns/missing")
        .contains("not found");
    assertThat(answer.get("uid-old").getError()).contains("ns/replaced").contains("was replaced");
    assertThat(answer.get("uid-pending").getError()).contains("ns/pending is not allocated");
    assertThat(answer.get("uid-other").getError()).contains("has no device allocated by driver");
    assertThat(answer.get("uid-pool").getError()).contains("\"node-b\"").contains("gpu-1");
    assertThat(answer.get("uid-nodev").getError())
        .contains("\"gpu-9\"")
        .contains("this node does not have");
    assertThat(answer.get("uid-empty").getError()).contains("namespace is empty");
    assertThat(answer.get("uid-long").getError()).contains("name").contains("at most 253");
    assertThat(
            node.ledger().current().leases().stream()
                .map(l -> ((Holder.DraClaim) l.holder()).uid())
                .collect(Collectors.toSet()))
        .containsExactly("uid-good");
  }

  @Test
  void unprepareReleasesAndRemovesTheSpecAndIsIdempotent() throws Exception {
    ManagedChannel endpoint = registered();
    node.claims.put("ml", "c", UID_A, result("gpu", "gpu-0"));
    StandInKubelet.prepareV1(endpoint, prepare(claim("ml", "c", UID_A)));
    assertThat(specFile(UID_A)).exists();

    var first = StandInKubelet.unprepareV1(endpoint, unprepare(claim("ml", "c", UID_A)));
    var again =
        StandInKubelet.unprepareV1beta1(
            endpoint,
            io.acceld.proto.dra.v1beta1.NodeUnprepareResourcesRequest.newBuilder()
                .addClaims(
                    io.acceld.proto.dra.v1beta1.Claim.newBuilder()
                        .setNamespace("ml")
                        .setName("c")
                        .setUid(UID_A))
                .build());
    var unknown = StandInKubelet.unprepareV1(endpoint, unprepare(claim("ml", "never", UID_B)));

    assertThat(first.getClaimsOrThrow(UID_A).getError()).isEmpty();
    assertThat(again.getClaimsOrThrow(UID_A).getError()).isEmpty();
    assertThat(unknown.getClaimsOrThrow(UID_B).getError()).isEmpty();
    assertThat(leasesOf(UID_A)).isEmpty();
    assertThat(specFile(UID_A)).doesNotExist();
    // the device is free for another side again
    LeaseResult pod =
        node.ledger()
            .lease(
                new Holder.KubeletPod("a", "b", "c"),
                List.of(ReplicaId.whole(node.devices.get(0).id())),
                "Allocate");
    assertThat(pod.granted()).isTrue();
  }

  @Test
  void aRestartKeepsPreparedClaimsRecreatesTheirSpecsAndAnswersTheSame() throws Exception {
    ManagedChannel endpoint = registered();
    node.claims.put("ml", "c", UID_A, result("gpu", "gpu-1"));
    NodePrepareResourcesResponse before =
        StandInKubelet.prepareV1(endpoint, prepare(claim("ml", "c", UID_A)));
    String spec = Files.readString(specFile(UID_A));
    kubelet.close();

    node.stop();
    Files.delete(specFile(UID_A)); // /var/run/cdi is tmpfs: a reboot empties it
    Files.writeString(node.settings.cdiDir().resolve("k8s." + DRIVER + "-claim_stale.json"), "{}");
    node.start();

    assertThat(leasesOf(UID_A)).hasSize(1);
    assertThat(specFile(UID_A)).exists();
    assertThat(Files.readString(specFile(UID_A))).isEqualTo(spec);
    assertThat(node.settings.cdiDir().resolve("k8s." + DRIVER + "-claim_stale.json"))
        .doesNotExist();
    kubelet = new StandInKubelet(node.settings.pluginsRegistryDir());
    ManagedChannel again = kubelet.register(WAIT).endpoint();
    assertThat(StandInKubelet.prepareV1(again, prepare(claim("ml", "c", UID_A)))).isEqualTo(before);
  }

  @Test
  void aRestoredClaimGetsItsSpecOnceItsDevicesAreDiscovered() throws Exception {
    ManagedChannel endpoint = registered();
    node.claims.put("ml", "c", UID_A, result("gpu", "gpu-1"));
    StandInKubelet.prepareV1(endpoint, prepare(claim("ml", "c", UID_A)));
    String spec = Files.readString(specFile(UID_A));
    kubelet.close();
    kubelet = null;
    node.stop();
    Files.delete(specFile(UID_A));
    List<io.acceld.inventory.Device> hardware = node.devices;
    node.devices = List.of(); // the agent starts before discovery has run
    node.publish();
    node.start();
    assertThat(leasesOf(UID_A)).hasSize(1);
    assertThat(specFile(UID_A)).doesNotExist();

    node.devices = hardware;
    node.publish();

    Eventually.await("the restored claim's spec is written", () -> Files.exists(specFile(UID_A)));
    assertThat(Files.readString(specFile(UID_A))).isEqualTo(spec);
  }

  @Test
  void healthStreamsTheWholeListAndAnUnhealthyDeviceWithinABoundedWait() throws Exception {
    ManagedChannel endpoint = registered(Duration.ofMillis(200));
    HealthStream stream = kubelet.watchHealth(endpoint);

    NodeWatchResourcesResponse first = stream.await(WAIT, r -> true);
    assertThat(first.getDevicesList())
        .extracting(d -> d.getDevice().getPoolName() + "/" + d.getDevice().getDeviceName())
        .containsExactly(NODE + "/gpu-0", NODE + "/gpu-1");
    assertThat(first.getDevicesList()).allMatch(d -> d.getHealth() == HealthStatus.HEALTHY);
    assertThat(first.getDevices(0).getLastUpdatedTime())
        .isEqualTo(node.clock.instant().getEpochSecond());
    assertThat(first.getDevices(0).getHealthCheckTimeoutSeconds()).isEqualTo(1);

    String xid = "XID 79: GPU has fallen off the bus " + "x".repeat(2000);
    node.unhealthy(1, xid);
    NodeWatchResourcesResponse sick =
        stream.await(WAIT, r -> r.getDevices(1).getHealth() == HealthStatus.UNHEALTHY);
    DeviceHealth gpu1 = sick.getDevices(1);
    assertThat(gpu1.getMessage()).startsWith("XID 79").endsWith("...").hasSize(1024);
    assertThat(sick.getDevices(0).getHealth()).isEqualTo(HealthStatus.HEALTHY);

    // with no change, the full list comes again every period
    stream.received.clear();
    stream.await(WAIT, r -> r.getDevicesCount() == 2);
    stream.await(WAIT, r -> r.getDevicesCount() == 2);

    stream.cancel();
    Eventually.await("the cancelled stream is forgotten", () -> node.side.healthWatchers() == 0);
  }
}
