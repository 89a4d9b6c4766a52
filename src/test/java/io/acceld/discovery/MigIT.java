package io.acceld.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.config.MigLayout;
import io.acceld.inventory.Device;
import io.acceld.inventory.MigDetails;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Holder;
import io.acceld.ledger.LeaseResult;
import io.acceld.mesos.wire.MediaType;
import io.acceld.nvml.NvmlEventType;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.DeviceSpec;
import io.acceld.proto.mesos.v1.scheduler.Event;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.mesos.MesosCalls;
import io.acceld.testing.mesos.MesosSchedulerClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MIG through the real daemon: the fixture node with some GPUs in MIG mode, the NVML double giving
 * their MIG devices, and the kubelet double dialling every resource the agent registers.
 */
class MigIT {
  static final String GPU = "nvidia.com/gpu";
  static final String MIG_1G = "nvidia.com/mig-1g.10gb";
  static final String MIG_3G = "nvidia.com/mig-3g.40gb";
  static final String MIG_2G = "nvidia.com/mig-2g.20gb";
  static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path root;
  FixtureNode node;
  NvmlDouble nvml;
  KubeletDouble kubelet;
  AgentDaemon daemon;

  @AfterEach
  void close() throws Exception {
    if (daemon != null) {
      daemon.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
  }

  void start(String layout, String strategy, String... more) throws Exception {
    node = Fixtures.node(root.resolve("node"), 8, MigLayout.parse(layout));
    nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
    Map<String, String> flags = DaemonFlags.withMesos(root, node, nvml, kubelet, "1s");
    flags.put("mig-strategy", strategy);
    flags.put("rescan-interval", "1s");
    for (int i = 0; i < more.length; i += 2) {
      flags.put(more[i], more[i + 1]);
    }
    Optional<Path> file = Optional.empty();
    if (yaml != null) {
      file = Optional.of(Files.writeString(root.resolve("acceld.yaml"), yaml));
    }
    daemon = AgentDaemon.start(ConfigLoader.load(flags, Map.of(), file));
  }

  /** A config file for the next {@link #start}, such as a sharing policy. */
  String yaml;

  List<Device> devicesOf(String resource) {
    return daemon.ledger().current().inventory().devicesOf(resource);
  }

  static MigDetails mig(Device d) {
    return d.nvidia().flatMap(NvidiaDetails::mig).orElseThrow();
  }

  static Predicate<List<DeviceState>> count(int n) {
    return l -> l.size() == n;
  }

  Set<String> idsOf(String resource) {
    return devicesOf(resource).stream().map(Device::id).collect(Collectors.toSet());
  }

  HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + daemon.metricsServer().port() + path))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void mixedAdvertisesEachProfileAsItsOwnResourceBesideTheWholeGpus() throws Exception {
    start("0=1g.10gb*7;1=3g.40gb,2g.20gb*2", "mixed");

    List<DeviceState> whole = kubelet.awaitDevices(GPU, count(6), WAIT);
    List<DeviceState> small = kubelet.awaitDevices(MIG_1G, count(7), WAIT);
    kubelet.awaitDevices(MIG_3G, count(1), WAIT);
    kubelet.awaitDevices(MIG_2G, count(2), WAIT);

    assertThat(whole).extracting(DeviceState::id).allMatch(id -> id.startsWith("GPU-"));
    assertThat(small).allMatch(DeviceState::healthy);
    assertThat(small).extracting(DeviceState::id).allMatch(id -> id.startsWith("MIG-"));
    // Topology: the parent's NUMA node.
    assertThat(small).allMatch(d -> d.numaNodes().equals(List.of(0L)));
    for (Device d : devicesOf(MIG_1G)) {
      assertThat(mig(d).parentUuid()).isEqualTo(node.gpus().get(0).uuid());
      assertThat(mig(d).profile()).isEqualTo("1g.10gb");
      assertThat(d.nvidia().orElseThrow().memoryBytes()).isEqualTo(9856L << 20);
    }
    assertThat(devicesOf(MIG_1G))
        .extracting(d -> mig(d).gpuInstanceId())
        .containsExactlyInAnyOrder(7, 8, 9, 11, 12, 13, 14);
  }

  @Test
  void eachMigDevicesFramebufferIsExportedUnderDcgmsGpuInstanceLabels() throws Exception {
    start("0=3g.40gb", "mixed", "telemetry-interval", "200ms");
    kubelet.awaitDevices(MIG_3G, count(1), WAIT);
    String parent = node.gpus().get(0).uuid();

    Eventually.await(
        "the MIG device's framebuffer series",
        WAIT,
        () -> {
          try {
            return get("/metrics")
                .body()
                .lines()
                .anyMatch(
                    l ->
                        l.startsWith("DCGM_FI_DEV_FB_FREE{")
                            && l.contains("GPU_I_ID=\"7\"")
                            && l.contains("GPU_I_PROFILE=\"3g.40gb\"")
                            && l.contains("UUID=\"" + parent + "\""));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @Test
  void noneAdvertisesMigEnabledGpusWholeAndAPendingModeIsOneWarn() throws Exception {
    try (LogCapture log = LogCapture.of(InventoryScanner.class)) {
      start("0=1g.10gb*7", "none");

      assertThat(kubelet.awaitDevices(GPU, count(8), WAIT))
          .extracting(DeviceState::id)
          .allMatch(id -> id.startsWith("GPU-"));
      assertThat(kubelet.registration(MIG_1G)).isEmpty();

      // An operator asks for MIG off on GPU 0: pending until the GPU is reset.
      nvml.appendControl("mig-mode 0 1 0");
      Eventually.await(
          "one WARN about GPU 0's pending MIG mode",
          WAIT,
          () -> log.warnings().stream().anyMatch(w -> w.contains("after the GPU is next reset")));
      assertThat(log.warnings().stream().filter(w -> w.contains("after the GPU is next reset")))
          .hasSize(1)
          .allMatch(w -> w.contains(node.gpus().get(0).uuid()) && w.contains("enabled now"));
    }
  }

  @Test
  void timeSlicingReplicatesMigDevicesAsItDoesWholeGpus() throws Exception {
    yaml = "resources:\n  " + MIG_1G + ":\n    replicas: 2\n";
    start("0=1g.10gb*2", "mixed");

    List<DeviceState> replicas = kubelet.awaitDevices(MIG_1G, count(4), WAIT);
    Device first = devicesOf(MIG_1G).get(0);
    assertThat(replicas)
        .extracting(DeviceState::id)
        .contains(first.id() + "::0", first.id() + "::1");
    ContainerAllocateResponse response = kubelet.allocateOne(MIG_1G, List.of(first.id() + "::1"));
    assertThat(response.getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", first.id());
  }

  @Test
  void devicesListsEachMigDeviceWithItsProfileParentInstancesMemoryAndHolder() throws Exception {
    start("0=3g.40gb", "mixed");
    kubelet.awaitDevices(MIG_3G, count(1), WAIT);
    Device mig = devicesOf(MIG_3G).get(0);
    daemon
        .ledger()
        .lease(new Holder.MesosTask("fw", "t-7"), List.of(ReplicaId.whole(mig.id())), "test");

    JsonNode rows = new ObjectMapper().readTree(get("/devices").body());
    JsonNode row = null;
    for (JsonNode r : rows) {
      if (r.get("id").asText().equals(mig.id())) {
        row = r;
      }
    }
    assertThat(row).isNotNull();
    assertThat(row.get("resource").asText()).isEqualTo(MIG_3G);
    assertThat(row.get("migProfile").asText()).isEqualTo("3g.40gb");
    assertThat(row.get("parentId").asText()).isEqualTo(node.gpus().get(0).uuid());
    assertThat(row.get("gpuInstanceId").asInt()).isEqualTo(7);
    assertThat(row.get("computeInstanceId").asInt()).isZero();
    assertThat(row.get("memoryBytes").asLong()).isEqualTo(40192L << 20);
    assertThat(row.get("health").asText()).isEqualTo("Healthy");
    assertThat(row.get("holderKind").asText()).isEqualTo("mesos_task");
  }

  @Test
  void anAllocateOfMigDevicesNamesTheirUuidsAndTheirParentAndAccessNodes() throws Exception {
    start("0=1g.10gb*7", "mixed", "pass-device-specs", "true");
    kubelet.awaitDevices(MIG_1G, count(7), WAIT);
    Device first = devicesOf(MIG_1G).get(0);
    Device second = devicesOf(MIG_1G).get(1);

    ContainerAllocateResponse response =
        kubelet.allocateOne(MIG_1G, List.of(first.id(), second.id()));

    assertThat(response.getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", first.id() + "," + second.id());
    int gpu = 0; // the fixture's GPU 0 has minor 0
    List<String> containerPaths =
        response.getDevicesList().stream().map(DeviceSpec::getContainerPath).toList();
    int firstGi = mig(first).gpuInstanceId();
    int secondGi = mig(second).gpuInstanceId();
    assertThat(containerPaths)
        .contains(
            "/dev/nvidia" + gpu,
            "/dev/nvidiactl",
            "/dev/nvidia-uvm",
            "/dev/nvidia-uvm-tools",
            // minors per the fixture's mig-minors: 3 + 135 * gpu + 9 * gi (+ 1 + ci)
            "/dev/nvidia-caps/nvidia-cap" + (3 + 9 * firstGi),
            "/dev/nvidia-caps/nvidia-cap" + (4 + 9 * firstGi),
            "/dev/nvidia-caps/nvidia-cap" + (3 + 9 * secondGi),
            "/dev/nvidia-caps/nvidia-cap" + (4 + 9 * secondGi));
    assertThat(containerPaths).doesNotHaveDuplicates();
  }

  @Test
  void anXidOfOneInstanceMarksThatMigDeviceOnlyAndAWholeGpuXidMarksThemAll() throws Exception {
    start("0=1g.10gb*7", "mixed", "health-probe-interval", "200ms");
    kubelet.awaitDevices(
        MIG_1G, l -> l.size() == 7 && l.stream().allMatch(DeviceState::healthy), WAIT);
    Device struck =
        devicesOf(MIG_1G).stream()
            .filter(d -> mig(d).gpuInstanceId() == 11)
            .findFirst()
            .orElseThrow();

    Eventually.await(
        "the XID of GPU instance 11 to be delivered",
        () ->
            nvml.control()
                    .acceld_fake_inject_instance_event(
                        0, NvmlEventType.XID_CRITICAL_ERROR, 95, 11, 0)
                > 0);
    List<DeviceState> after =
        kubelet.awaitDevices(MIG_1G, l -> l.stream().anyMatch(d -> !d.healthy()), WAIT);
    assertThat(after.stream().filter(d -> !d.healthy()).map(DeviceState::id))
        .containsExactly(struck.id());
    assertThat(kubelet.awaitDevices(GPU, count(7), WAIT)).allMatch(DeviceState::healthy);

    // The whole GPU (both IDs 0xFFFFFFFF): every MIG device on it.
    assertThat(nvml.control().acceld_fake_inject_event(0, NvmlEventType.XID_CRITICAL_ERROR, 48))
        .isPositive();
    kubelet.awaitDevices(
        MIG_1G, l -> l.size() == 7 && l.stream().noneMatch(DeviceState::healthy), WAIT);
    assertThat(kubelet.awaitDevices(GPU, count(7), WAIT)).allMatch(DeviceState::healthy);
  }

  @Test
  void aRepartitionAtRunTimeIsAdvertisedAndAGoneProfileStaysRegisteredWithNoDevice()
      throws Exception {
    start("0=1g.10gb*7", "mixed");
    kubelet.awaitDevices(MIG_1G, count(7), WAIT);

    nvml.appendControl("mig 0 3g.40gb 2g.20gb 2g.20gb");

    kubelet.awaitDevices(MIG_3G, count(1), WAIT);
    kubelet.awaitDevices(MIG_2G, count(2), WAIT);
    // Not left with stale capacity: the kubelet is told 0 devices.
    kubelet.awaitDevices(MIG_1G, count(0), WAIT);
    assertThat(kubelet.registration(MIG_1G)).isPresent();
    assertThat(get("/metrics").body())
        .contains(
            "acceld_mig_devices{gpu=\""
                + node.gpus().get(0).uuid()
                + "\",profile=\"2g.20gb\"} 2.0");
  }

  @Test
  void aMigDeviceHeldWhenItDisappearsKeepsItsLeaseAndItsGpuIsNotLeasedWholeMeanwhile()
      throws Exception {
    start("0=1g.10gb*7", "mixed");
    kubelet.awaitDevices(MIG_1G, count(7), WAIT);
    Device held = devicesOf(MIG_1G).get(0);
    Holder task = new Holder.MesosTask("fw", "t-1");
    assertThat(daemon.ledger().lease(task, List.of(ReplicaId.whole(held.id())), "test").granted())
        .isTrue();

    // MIG mode off: GPU 0 is whole again, its MIG devices gone.
    nvml.appendControl("mig-mode 0 0 0");
    Eventually.await("GPU 0 to be whole again", WAIT, () -> idsOf(GPU).size() == 8);

    assertThat(daemon.ledger().current().leasesOf(held.id())).hasSize(1);
    LeaseResult whole =
        daemon
            .ledger()
            .lease(
                new Holder.KubeletPending("alloc-1"),
                List.of(ReplicaId.whole(node.gpus().get(0).uuid())),
                "Allocate");
    assertThat(whole).isInstanceOf(LeaseResult.Refused.class);
    assertThat(((LeaseResult.Refused) whole).message())
        .contains("shares its GPU with " + held.id())
        .contains("Mesos task fw/t-1");

    daemon.ledger().release(task);
    assertThat(
            daemon
                .ledger()
                .lease(
                    new Holder.KubeletPending("alloc-2"),
                    List.of(ReplicaId.whole(node.gpus().get(0).uuid())),
                    "Allocate")
                .granted())
        .isTrue();
  }

  @Test
  void singleAdvertisesMigDevicesAsGpusWhenEveryGpuIsMigWithOneProfile() throws Exception {
    String all =
        "0=1g.10gb*7;1=1g.10gb*7;2=1g.10gb*7;3=1g.10gb*7;4=1g.10gb*7;5=1g.10gb*7;6=1g.10gb*7;7=1g.10gb*7";
    start(all, "single");

    List<DeviceState> gpus = kubelet.awaitDevices(GPU, count(56), WAIT);
    assertThat(gpus).extracting(DeviceState::id).allMatch(id -> id.startsWith("MIG-"));
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
  }

  @Test
  void singleOnANodeThatBreaksItsRulesAdvertisesNoGpuAndIsNotReady() throws Exception {
    try (LogCapture log = LogCapture.of(InventoryScanner.class)) {
      start("0=1g.10gb*7;1=3g.40gb", "single");

      kubelet.awaitRegistered(GPU, WAIT);
      kubelet.awaitDevices(GPU, count(0), WAIT);
      HttpResponse<String> ready = get("/readyz");
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body())
          .contains("--mig-strategy single")
          .contains("whole GPUs")
          .contains("more than one MIG profile: 1g.10gb, 3g.40gb");
      Eventually.await(
          "one ERROR naming the GPUs",
          () -> log.warnings().stream().anyMatch(w -> w.contains(node.gpus().get(2).uuid())));
      assertThat(log.warnings().stream().filter(w -> w.contains("--mig-strategy single")))
          .hasSize(1);
    }
  }

  @Test
  void aMissingMigMinorsTableMakesTheMigDevicesUnhealthyWithTheReasonAndTheRestServe()
      throws Exception {
    start("0=1g.10gb*2", "mixed");
    kubelet.awaitDevices(MIG_1G, count(2), WAIT);
    Files.writeString(
        node.tree().procRoot().resolve("driver/nvidia-caps/mig-minors"),
        "config 1\nmonitor 2\ngpu0/gi7/access 66\ngarbage line here\n");

    List<DeviceState> after =
        kubelet.awaitDevices(
            MIG_1G, l -> l.size() == 2 && l.stream().noneMatch(DeviceState::healthy), WAIT);
    assertThat(after).hasSize(2);
    assertThat(devicesOf(MIG_1G))
        .allMatch(d -> d.healthReason().orElse("").contains("mig-minors has no entry for gpu0/gi"));
    assertThat(kubelet.awaitDevices(GPU, count(7), WAIT)).allMatch(DeviceState::healthy);
  }

  @Test
  void mesosOffersMigDevicesAsTheirOwnScalarsAndGpusCountsWholeGpusOnly() throws Exception {
    start("0=1g.10gb*7", "mixed");
    kubelet.awaitDevices(MIG_1G, count(7), WAIT);
    MesosSchedulerClient client =
        MesosSchedulerClient.of("127.0.0.1:" + daemon.mesos().orElseThrow().port(), MediaType.JSON);
    try (var events =
        client.subscribe(
            MesosCalls.subscribe(MesosCalls.framework("mig", true), Optional.empty()))) {
      var offer = events.awaitEvent(Event.Type.OFFERS, WAIT).getOffers().getOffers(0);
      Map<String, Double> scalars =
          offer.getResourcesList().stream()
              .filter(r -> r.hasScalar())
              .collect(
                  Collectors.toMap(r -> r.getName(), r -> r.getScalar().getValue(), Double::sum));
      assertThat(scalars).containsEntry("gpus", 7.0).containsEntry(MIG_1G, 7.0);
    }
  }

  @Test
  void anUnknownStrategyIsRefusedWithTheAllowedValues() {
    assertThatThrownBy(
            () -> ConfigLoader.load(Map.of("mig-strategy", "half"), Map.of(), Optional.empty()))
        .hasMessageContaining("mig-strategy")
        .hasMessageContaining("none, single, mixed");
  }
}
