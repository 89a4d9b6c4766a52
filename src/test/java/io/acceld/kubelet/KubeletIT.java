package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Holder;
import io.acceld.ledger.LeaseResult;
import io.acceld.nvml.NvmlEventType;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.DeviceSpec;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.simulate.HotPlug;
import io.acceld.simulate.SimulatedGpu;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.kubelet.Registration;
import io.acceld.util.OperatorError;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real agent against the kubelet double, on a node with eight NVIDIA GPUs (NVML double) and two
 * AMD GPUs, plus a NIC, a BMC and bridges.
 */
class KubeletIT {
  static final String NVIDIA = "nvidia.com/gpu";
  static final String AMD = "amd.com/gpu";
  static final Duration REGISTRATION = Duration.ofSeconds(3);

  @TempDir Path root;
  FixtureNode node;
  NvmlDouble nvml;
  KubeletDouble kubelet;
  final List<AutoCloseable> closers = new ArrayList<>();

  @BeforeEach
  void node() {
    node = Fixtures.eightGpuNode(root.resolve("node"));
    addAmdGpus(node);
    nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
  }

  /** Two MI210s beside the NVIDIA GPUs, as a mixed node has. */
  static void addAmdGpus(FixtureNode node) {
    for (int card = 1; card <= 2; card++) {
      node.tree()
          .pci(String.format("0000:%02x:00.0", 0xc0 + card))
          .id(0x1002, 0x740f)
          .pciClass(0x038000)
          .numa(card - 1, "0-3")
          .driver("amdgpu")
          .productName("AMD Instinct MI210")
          .under("pci0000:c0")
          .drm("card" + card, "renderD" + (127 + card))
          .write();
      node.tree().devNode("dri/card" + card).devNode("dri/renderD" + (127 + card));
    }
    node.tree().devNode("kfd");
  }

  @AfterEach
  void close() throws Exception {
    for (int i = closers.size() - 1; i >= 0; i--) {
      closers.get(i).close();
    }
  }

  AgentHarness.Builder agent() {
    return AgentHarness.on(node.tree())
        .flag("nvml-library", nvml.libraryPath().toString())
        .flag("device-plugin-dir", kubelet.deviceDir().toString());
  }

  AgentHarness start(AgentHarness.Builder builder) throws Exception {
    AgentHarness harness = builder.start(root.resolve("etc"));
    closers.add(harness);
    return harness;
  }

  KubeletDouble kubelet() throws Exception {
    kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
    closers.add(kubelet);
    return kubelet;
  }

  String uuid(int i) {
    return node.gpus().get(i).uuid();
  }

  @Test
  void registersEachResourceAndStreamsItsDevicesWithNumaTopology() throws Exception {
    kubelet();
    start(agent());

    Registration nvidia = kubelet.awaitRegistered(NVIDIA, REGISTRATION);
    kubelet.awaitRegistered(AMD, REGISTRATION);

    assertThat(nvidia.request().orElseThrow().getVersion()).isEqualTo("v1beta1");
    assertThat(nvidia.request().orElseThrow().getEndpoint())
        .isEqualTo("acceld-nvidia.com_gpu.sock");
    assertThat(nvidia.options().getGetPreferredAllocationAvailable()).isTrue();
    assertThat(nvidia.request().orElseThrow().getOptions()).isEqualTo(nvidia.options());
    List<DeviceState> gpus = kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);
    for (SimulatedGpu g : node.gpus()) {
      DeviceState d = gpus.stream().filter(s -> s.id().equals(g.uuid())).findFirst().orElseThrow();
      assertThat(d.health()).isEqualTo("Healthy");
      assertThat(d.numaNodes()).containsExactly((long) g.numaNode());
    }
    assertThat(kubelet.awaitDevices(AMD, l -> l.size() == 2, REGISTRATION))
        .extracting(DeviceState::id)
        .containsExactlyInAnyOrder("0000:c1:00.0", "0000:c2:00.0");
    assertThat(kubelet.registrations()).containsOnlyKeys(NVIDIA, AMD);
  }

  @Test
  void allocateHandsNvidiaContainersTheirGpusInRequestOrder() throws Exception {
    kubelet();
    start(agent());
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);

    ContainerAllocateResponse r = kubelet.allocateOne(NVIDIA, List.of(uuid(5), uuid(2)));

    assertThat(r.getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", uuid(5) + "," + uuid(2));
    assertThat(r.getDevicesList())
        .extracting(DeviceSpec::getHostPath)
        .containsExactly(
            "/dev/nvidia5",
            "/dev/nvidiactl",
            "/dev/nvidia-uvm",
            "/dev/nvidia-uvm-tools",
            "/dev/nvidia-modeset",
            "/dev/nvidia2");
    assertThat(r.getDevicesList()).allSatisfy(d -> assertThat(d.getPermissions()).isEqualTo("rw"));
  }

  @Test
  void allocateHandsAmdContainersKfdAndTheirOwnDrmNodes() throws Exception {
    kubelet();
    start(agent());
    kubelet.awaitDevices(AMD, l -> l.size() == 2, REGISTRATION);

    ContainerAllocateResponse r = kubelet.allocateOne(AMD, List.of("0000:c2:00.0"));

    assertThat(r.getDevicesList())
        .extracting(DeviceSpec::getHostPath)
        .containsExactly("/dev/kfd", "/dev/dri/card2", "/dev/dri/renderD129");
  }

  @Test
  void multiContainerRequestsGetOneResponseEachInOrder() throws Exception {
    kubelet();
    start(agent());
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);

    AllocateResponse r =
        kubelet.allocate(
            NVIDIA, List.of(List.of(uuid(7)), List.of(uuid(0), uuid(1)), List.of(uuid(3))));

    assertThat(r.getContainerResponsesList())
        .extracting(c -> c.getEnvsMap().get("NVIDIA_VISIBLE_DEVICES"))
        .containsExactly(uuid(7), uuid(0) + "," + uuid(1), uuid(3));
  }

  /**
   * One device for two containers is the request's fault (INVALID_ARGUMENT), not the node's; and a
   * thousand container requests get an answer whose status fits in the client's header limit.
   */
  @Test
  void aDeviceNamedByTwoContainersIsAnInvalidRequestAndAThousandContainersGetABoundedStatus()
      throws Exception {
    kubelet();
    start(agent());
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);

    assertThatThrownBy(
            () -> kubelet.allocate(NVIDIA, List.of(List.of(uuid(0)), List.of(uuid(1), uuid(0)))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription())
                  .contains(uuid(0))
                  .contains("container requests 0 and 1");
            });
    List<List<String>> thousand = new java.util.ArrayList<>();
    for (int c = 0; c < 1_000; c++) {
      thousand.add(List.of(uuid(c % 8)));
    }
    assertThatThrownBy(() -> kubelet.allocate(NVIDIA, thousand))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(
                      e.getStatus()
                          .getDescription()
                          .getBytes(java.nio.charset.StandardCharsets.UTF_8)
                          .length)
                  .isLessThanOrEqualTo(1024);
            });
    // Nothing was handed out: every GPU still free for the next pod.
    assertThat(kubelet.allocateOne(NVIDIA, List.of(uuid(0))).getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", uuid(0));
  }

  @Test
  void unknownAndUnhealthyIdsAreRefusedByNameAndNothingIsHandedOut() throws Exception {
    kubelet();
    HotPlug.removeDevNode(node.tree(), "nvidia4");
    start(agent());
    kubelet.awaitDevices(
        NVIDIA,
        l -> l.stream().anyMatch(d -> d.id().equals(uuid(4)) && !d.healthy()),
        REGISTRATION);

    assertThatThrownBy(
            () -> kubelet.allocate(NVIDIA, List.of(List.of(uuid(0)), List.of("GPU-nope"))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("GPU-nope");
            });
    assertThatThrownBy(() -> kubelet.allocateOne(NVIDIA, List.of(uuid(1), uuid(4))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription())
                  .contains(uuid(4))
                  .contains("Unhealthy")
                  .contains("nvidia4");
            });
  }

  @Test
  void aFloodOfRefusedAllocatesIsLoggedOnceEscapedAndCut() throws Exception {
    kubelet();
    start(agent());
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);

    try (LogCapture logs = LogCapture.of(DevicePluginService.class)) {
      String forged = "GPU-x\n2026-12-01 INFO forged line " + "y".repeat(100_000);
      for (int i = 0; i < 200; i++) {
        assertThatThrownBy(() -> kubelet.allocateOne(NVIDIA, List.of(forged)))
            .isInstanceOf(StatusRuntimeException.class);
      }

      assertThat(logs.warnings()).hasSize(1);
      assertThat(logs.warnings().get(0))
          .contains("GPU-x\\u000a2026-12-01")
          .doesNotContain("\n")
          .hasSizeLessThan(1000);
    }
  }

  @Test
  void malformedRequestsGetClearErrorsAndTheServerKeepsServing() throws Exception {
    kubelet();
    start(agent());
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);

    assertThatThrownBy(() -> kubelet.allocate(NVIDIA, List.of(List.of(uuid(0)), List.of())))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription())
                  .contains("container request 1 names no devices");
            });
    assertThatThrownBy(() -> kubelet.allocate(NVIDIA, List.of()))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("no container requests");
    assertThatThrownBy(
            () -> kubelet.getPreferredAllocation(NVIDIA, List.of(uuid(0)), List.of(), -1))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("allocation_size");
    // Only advertised IDs, each once: an answer is always a subset of what we advertise, and the
    // work is bounded by the resource, not by the request.
    assertThatThrownBy(
            () ->
                kubelet.getPreferredAllocation(
                    NVIDIA, List.of("GPU-unknown", uuid(2)), List.of(), 1))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription())
                  .contains("\"GPU-unknown\"")
                  .contains("available_deviceIDs");
            });
    assertThatThrownBy(
            () -> kubelet.getPreferredAllocation(NVIDIA, List.of(uuid(2), uuid(2)), List.of(), 1))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("appears twice");
    // Each container request costs a search on a transport thread: a call cannot list thousands.
    PreferredAllocationRequest.Builder many = PreferredAllocationRequest.newBuilder();
    for (int c = 0; c < 1_000; c++) {
      many.addContainerRequests(
          ContainerPreferredAllocationRequest.newBuilder()
              .addAllAvailableDeviceIDs(List.of(uuid(0), uuid(1), uuid(2), uuid(3)))
              .setAllocationSize(2));
    }
    assertThatThrownBy(() -> kubelet.getPreferredAllocation(NVIDIA, many.build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("1000 container requests");
            });
    // A client's bytes come back escaped and cut: no forged lines, no megabyte messages.
    String hostile = "GPU-x\nINFO forged line" + "A".repeat(100_000);
    assertThatThrownBy(() -> kubelet.allocateOne(NVIDIA, List.of(hostile)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e ->
                assertThat(e.getStatus().getDescription())
                    .contains("GPU-x\\u000aINFO forged line")
                    .doesNotContain("\n")
                    .hasSizeLessThan(400));
    assertThat(
            kubelet
                .getPreferredAllocation(NVIDIA, List.of(uuid(1), uuid(2)), List.of(), 1)
                .getContainerResponses(0)
                .getDeviceIDsList())
        .hasSize(1)
        .isSubsetOf(uuid(1), uuid(2));

    assertThat(kubelet.allocateOne(NVIDIA, List.of(uuid(0))).getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", uuid(0));
    assertThat(kubelet.isConnected(NVIDIA)).isTrue();
  }

  @Test
  void allocateIsIdempotentAndCallsNoNvml() throws Exception {
    kubelet();
    start(agent());
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);
    ContainerAllocateResponse first = kubelet.allocateOne(NVIDIA, List.of(uuid(1)));
    long before = nvml.control().acceld_fake_call_count();
    long start = System.nanoTime();

    for (int i = 0; i < 200; i++) {
      assertThat(kubelet.allocateOne(NVIDIA, List.of(uuid(1)))).isEqualTo(first);
    }

    // The health monitor's event wait (twice a second) and probes keep running meanwhile; an
    // Allocate that touched NVML would add at least 200 calls on top of them.
    double seconds = (System.nanoTime() - start) / 1e9;
    long calls = nvml.control().acceld_fake_call_count() - before;
    assertThat(calls).isLessThanOrEqualTo(Math.round(2 * seconds) + 8 + 2);
  }

  @Test
  void preferredAllocationFollowsNvlinksThenNuma() throws Exception {
    kubelet();
    start(agent());
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);
    List<String> all = node.gpus().stream().map(SimulatedGpu::uuid).toList();

    List<String> four =
        kubelet
            .getPreferredAllocation(NVIDIA, all, List.of(), 4)
            .getContainerResponses(0)
            .getDeviceIDsList();
    List<String> withFive =
        kubelet
            .getPreferredAllocation(NVIDIA, all, List.of(uuid(5)), 2)
            .getContainerResponses(0)
            .getDeviceIDsList();
    List<String> fromFew =
        kubelet
            .getPreferredAllocation(
                NVIDIA, List.of(uuid(0), uuid(3), uuid(4), uuid(7)), List.of(), 2)
            .getContainerResponses(0)
            .getDeviceIDsList();

    // The two NVLink islands {0,1,2,3} and {4,5,6,7} score the same; either is right, no mix is.
    assertThat(
            List.of(
                List.of(uuid(0), uuid(1), uuid(2), uuid(3)),
                List.of(uuid(4), uuid(5), uuid(6), uuid(7))))
        .anySatisfy(island -> assertThat(four).containsExactlyInAnyOrderElementsOf(island));
    assertThat(withFive).containsExactlyInAnyOrder(uuid(4), uuid(5));
    // No NVLinks among these; 0 and 3 share a NUMA node, as do 4 and 7 (a tie broken by ID); every
    // other pair crosses CPUs.
    assertThat(List.of(List.of(uuid(0), uuid(3)), List.of(uuid(4), uuid(7))))
        .anySatisfy(pair -> assertThat(fromFew).containsExactlyInAnyOrderElementsOf(pair));
  }

  @Test
  void replicasAreAdvertisedUnderTheSharedNameAndFoldedBackOnAllocate() throws Exception {
    kubelet();
    start(
        agent().yaml("resources:\n  nvidia.com/gpu:\n    replicas: 2\n    rename-shared: true\n"));

    List<DeviceState> shared =
        kubelet.awaitDevices(NVIDIA + ".shared", l -> l.size() == 16, REGISTRATION);
    assertThat(shared).extracting(DeviceState::id).contains(uuid(0) + "::0", uuid(0) + "::1");
    ContainerAllocateResponse r =
        kubelet.allocateOne(NVIDIA + ".shared", List.of(uuid(0) + "::1", uuid(0) + "::0"));
    assertThat(r.getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", uuid(0));
    List<String> spread =
        kubelet
            .getPreferredAllocation(
                NVIDIA + ".shared", shared.stream().map(DeviceState::id).toList(), List.of(), 2)
            .getContainerResponses(0)
            .getDeviceIDsList();
    assertThat(spread.stream().map(id -> id.substring(0, id.indexOf("::"))).distinct()).hasSize(2);
  }

  @Test
  void cdiSpecsAreWrittenAndAllocateNamesCdiDevices() throws Exception {
    kubelet();
    Path cdiDir = root.resolve("cdi");
    start(agent().flag("cdi", "true").flag("cdi-dir", cdiDir.toString()));
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);

    ContainerAllocateResponse r = kubelet.allocateOne(NVIDIA, List.of(uuid(2)));

    assertThat(r.getCdiDevicesList())
        .extracting(c -> c.getName())
        .containsExactly(NVIDIA + "=" + uuid(2));
    Path spec = cdiDir.resolve("acceld-nvidia.com_gpu.json");
    assertThat(spec).exists();
    assertThat(
            CdiSpecWriterTest.cdiSchema()
                .validate(
                    new com.fasterxml.jackson.databind.ObjectMapper().readTree(spec.toFile())))
        .isEmpty();
    assertThat(cdiDir.resolve("acceld-amd.com_gpu.json")).exists();
  }

  @Test
  void aSecondAgentExitsWithOneLineAndLeavesTheFirstOnesCdiSpecsAlone() throws Exception {
    kubelet();
    Path cdiDir = root.resolve("cdi");
    start(agent().flag("cdi", "true").flag("cdi-dir", cdiDir.toString()));
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);
    Path spec = cdiDir.resolve("acceld-nvidia.com_gpu.json");
    CdiSpecSyncTest.FileIdentity written = CdiSpecSyncTest.FileIdentity.of(spec);

    assertThatThrownBy(
            () ->
                agent()
                    .flag("cdi", "true")
                    .flag("cdi-dir", cdiDir.toString())
                    .flag("host-dev-prefix", "/elsewhere")
                    .start(root.resolve("second")))
        .isInstanceOfSatisfying(
            OperatorError.class,
            e -> {
              assertThat(e.kind()).isEqualTo(OperatorError.Kind.ALREADY_RUNNING);
              assertThat(e.getMessage()).contains("another acceld").doesNotContain("\n");
            });

    assertThat(CdiSpecSyncTest.FileIdentity.of(spec)).isEqualTo(written);
    assertThat(cdiDir.resolve("acceld-amd.com_gpu.json")).exists();
    assertThat(kubelet.allocateOne(NVIDIA, List.of(uuid(2))).getCdiDevicesList()).isNotEmpty();
  }

  @Test
  void aCdiSpecDeletedOrChangedBySomeoneElseIsRewritten() throws Exception {
    kubelet();
    Path cdiDir = root.resolve("cdi");
    start(
        agent()
            .flag("cdi", "true")
            .flag("cdi-dir", cdiDir.toString())
            .flag("cdi-check-interval", "100ms"));
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, REGISTRATION);
    Path spec = cdiDir.resolve("acceld-nvidia.com_gpu.json");
    byte[] content = Files.readAllBytes(spec);

    Files.delete(spec);
    Eventually.await("the deleted spec is back", () -> Files.exists(spec));
    assertThat(Files.readAllBytes(spec)).isEqualTo(content);

    Files.writeString(spec, "{}");
    Eventually.await(
        "the changed spec is rewritten",
        () -> {
          try {
            return java.util.Arrays.equals(Files.readAllBytes(spec), content);
          } catch (java.io.IOException e) {
            return false;
          }
        });
  }

  @Test
  void aHealthFlipReachesListAndWatchWithoutRewritingTheCdiSpec() throws Exception {
    kubelet();
    Path cdiDir = root.resolve("cdi");
    start(agent().flag("cdi", "true").flag("cdi-dir", cdiDir.toString()));
    kubelet.awaitDevices(
        NVIDIA, l -> l.size() == 8 && l.stream().allMatch(DeviceState::healthy), REGISTRATION);
    Path spec = cdiDir.resolve("acceld-nvidia.com_gpu.json");
    CdiSpecSyncTest.FileIdentity written = CdiSpecSyncTest.FileIdentity.of(spec);
    byte[] content = Files.readAllBytes(spec);

    nvml.control().acceld_fake_inject_event(3, NvmlEventType.XID_CRITICAL_ERROR, 79);

    kubelet.awaitDevices(
        NVIDIA,
        l -> l.stream().anyMatch(d -> d.id().equals(uuid(3)) && !d.healthy()),
        Duration.ofSeconds(5));
    assertThat(CdiSpecSyncTest.FileIdentity.of(spec)).isEqualTo(written);
    assertThat(Files.readAllBytes(spec)).isEqualTo(content);
  }

  @Test
  void allocateRecordsAPendingLeaseBeforeItAnswersSoMesosCannotTakeTheDevice() throws Exception {
    kubelet();
    AgentHarness agent = start(agent());
    kubelet.awaitRegistered(NVIDIA, REGISTRATION);

    kubelet.allocateOne(NVIDIA, List.of(uuid(1)));

    // No wait: the lease is the ledger's before the kubelet hears yes.
    assertThat(agent.ledger().current().leasesOf(uuid(1)))
        .singleElement()
        .satisfies(l -> assertThat(l.holder()).isInstanceOf(Holder.KubeletPending.class));
    LeaseResult mesos =
        agent
            .ledger()
            .lease(new Holder.MesosTask("fw", "t"), List.of(ReplicaId.whole(uuid(1))), "offer");
    assertThat(mesos).isInstanceOf(LeaseResult.Refused.class);
    assertThat(((LeaseResult.Refused) mesos).message()).contains("pending kubelet allocation");
  }

  @Test
  void aDeviceMesosHoldsIsShownUnhealthyAllocateIsRefusedNamingTheHolderAndItComesBack()
      throws Exception {
    kubelet();
    AgentHarness agent = start(agent());
    kubelet.awaitDevices(
        NVIDIA, l -> l.size() == 8 && l.stream().allMatch(DeviceState::healthy), REGISTRATION);
    Holder task = new Holder.MesosTask("framework-1", "task-7");

    assertThat(agent.ledger().lease(task, List.of(ReplicaId.whole(uuid(3))), "offer").granted())
        .isTrue();

    kubelet.awaitDevices(
        NVIDIA,
        l -> l.stream().anyMatch(d -> d.id().equals(uuid(3)) && !d.healthy()),
        REGISTRATION);
    assertThatThrownBy(() -> kubelet.allocateOne(NVIDIA, List.of(uuid(0), uuid(3))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription())
                  .contains(uuid(3))
                  .contains("Mesos task framework-1/task-7");
            });
    assertThat(agent.ledger().current().isLeased(uuid(0))).as("nothing handed out").isFalse();
    // A lease is not a fault: the device's own health is untouched.
    assertThat(agent.agent().inventory().current().device(uuid(3)).orElseThrow().isHealthy())
        .isTrue();

    agent.ledger().release(task);
    kubelet.awaitDevices(
        NVIDIA, l -> l.size() == 8 && l.stream().allMatch(DeviceState::healthy), REGISTRATION);
    assertThat(kubelet.allocateOne(NVIDIA, List.of(uuid(3))).getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", uuid(3));
  }

  @Test
  void preStartContainerChecksTheDevicesWhenRequired() throws Exception {
    kubelet();
    HotPlug.removeDevNode(node.tree(), "nvidia6");
    start(agent().flag("pre-start-required", "true"));
    Registration reg = kubelet.awaitRegistered(NVIDIA, REGISTRATION);
    assertThat(reg.options().getPreStartRequired()).isTrue();

    kubelet.preStartContainer(NVIDIA, List.of(uuid(1)));
    assertThatThrownBy(() -> kubelet.preStartContainer(NVIDIA, List.of(uuid(6))))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining(uuid(6));
  }

  @Test
  void aSecondAgentCannotTakeOverTheFirstOnesSocket() throws Exception {
    kubelet();
    AgentHarness first = start(agent());
    kubelet.awaitRegistered(NVIDIA, REGISTRATION);
    kubelet.awaitCondition(
        "the first agent saw its Register answered",
        () -> Boolean.TRUE.equals(first.kubelet().registrations().get(NVIDIA)),
        REGISTRATION);
    Path socket = first.kubelet().socketOf(NVIDIA).orElseThrow();

    // it stops at start (at the state directory's lock, before any socket), with one line, instead
    // of staying up and serving nothing
    assertThatThrownBy(() -> start(agent()))
        .isInstanceOfSatisfying(
            OperatorError.class,
            e -> assertThat(e.kind()).isEqualTo(OperatorError.Kind.ALREADY_RUNNING));

    assertThat(first.kubelet().registrations().get(NVIDIA)).isTrue();
    assertThat(socket).exists();
    assertThat(kubelet.isConnected(NVIDIA)).isTrue();
    assertThat(kubelet.registrations().get(NVIDIA)).isEqualTo(1);
  }

  /**
   * The kubelet is told 0 devices rather than left with stale capacity (the incumbent's #214,
   * #240): the server stays registered, its stream lists nothing, and the devices come back to it.
   */
  @Test
  void aResourceWhoseLastDeviceGoesAwayStaysRegisteredWithNoDevice() throws Exception {
    kubelet();
    AgentHarness harness = start(agent().flag("presence-poll-interval", "200ms"));
    kubelet.awaitDevices(AMD, l -> l.size() == 2, REGISTRATION);
    Path socket = harness.kubelet().socketOf(AMD).orElseThrow();

    HotPlug.unplug(node.tree(), "0000:c1:00.0");
    HotPlug.unplug(node.tree(), "0000:c2:00.0");

    kubelet.awaitDevices(AMD, List::isEmpty, Duration.ofSeconds(5));
    assertThat(socket).exists();
    assertThat(harness.kubelet().registrations()).containsOnlyKeys(NVIDIA, AMD);
    assertThat(kubelet.isConnected(AMD)).isTrue();
    assertThat(kubelet.isConnected(NVIDIA)).isTrue();
  }

  @Test
  void shutdownRemovesOurSocketsAndEndsTheStreams() throws Exception {
    kubelet();
    AgentHarness harness = start(agent());
    kubelet.awaitRegistered(NVIDIA, REGISTRATION);
    Path socket = harness.kubelet().socketOf(NVIDIA).orElseThrow();

    harness.close();

    assertThat(socket).doesNotExist();
    assertThat(Files.exists(socket.resolveSibling(socket.getFileName() + ".lock"))).isFalse();
    kubelet.awaitStreamEnded(NVIDIA, Duration.ofSeconds(5));
  }
}
