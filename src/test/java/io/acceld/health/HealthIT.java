package io.acceld.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.agent.Agent;
import io.acceld.nvml.NvmlEventType;
import io.acceld.nvml.NvmlReturn;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.simulate.HotPlug;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults injected through the NVML double and the fixture tree, observed where it matters: in the
 * ListAndWatch stream the kubelet double receives.
 */
class HealthIT {
  static final String NVIDIA = "nvidia.com/gpu";
  static final Duration SOON = Duration.ofSeconds(3);

  @TempDir Path root;
  FixtureNode node;
  NvmlDouble nvml;
  KubeletDouble kubelet;
  final List<AutoCloseable> closers = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    node = Fixtures.eightGpuNode(root.resolve("node"));
    nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
    closers.add(kubelet);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closers.size() - 1; i >= 0; i--) {
      closers.get(i).close();
    }
  }

  void startAgent(String... flags) throws Exception {
    AgentHarness.Builder b =
        AgentHarness.on(node.tree())
            .flag("nvml-library", nvml.libraryPath().toString())
            .flag("device-plugin-dir", kubelet.deviceDir().toString())
            .flag("health-probe-interval", "200ms")
            .flag("presence-poll-interval", "200ms");
    for (int i = 0; i < flags.length; i += 2) {
      b.flag(flags[i], flags[i + 1]);
    }
    closers.add(b.start(root.resolve("etc")));
    kubelet.awaitDevices(
        NVIDIA, l -> l.size() == 8 && l.stream().allMatch(DeviceState::healthy), SOON);
  }

  String uuid(int gpu) {
    return node.gpus().get(gpu).uuid();
  }

  List<DeviceState> await(Predicate<List<DeviceState>> condition) throws InterruptedException {
    return kubelet.awaitDevices(NVIDIA, condition, SOON);
  }

  static Predicate<List<DeviceState>> unhealthy(String... ids) {
    List<String> expected = List.of(ids);
    return l ->
        l.stream()
            .filter(d -> !d.healthy())
            .map(DeviceState::id)
            .sorted()
            .toList()
            .equals(expected.stream().sorted().toList());
  }

  /**
   * Injects the XID until the kubelet sees the GPU unhealthy: an event queued in an event set the
   * agent is about to replace is lost, as with real NVML, so one injection proves nothing.
   */
  void xidUntilSeen(int gpu, int code, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      nvml.control().acceld_fake_inject_event(gpu, NvmlEventType.XID_CRITICAL_ERROR, code);
      try {
        kubelet.awaitDevices(
            NVIDIA,
            l -> l.stream().anyMatch(d -> d.id().equals(uuid(gpu)) && !d.healthy()),
            Duration.ofMillis(250));
        return;
      } catch (AssertionError notYet) {
        if (System.nanoTime() > deadline) {
          throw notYet;
        }
      }
    }
  }

  void xid(int gpu, int code) {
    assertThat(nvml.control().acceld_fake_inject_event(gpu, NvmlEventType.XID_CRITICAL_ERROR, code))
        .as("event registered")
        .isPositive();
  }

  @Test
  void aCriticalXidMarksOnlyThatGpu() throws Exception {
    startAgent();

    xid(3, 79);

    List<DeviceState> devices = await(unhealthy(uuid(3)));
    assertThat(devices).filteredOn(DeviceState::healthy).hasSize(7);
  }

  @Test
  void anXidStormOnEveryGpuMarksThemAllAtOnceWithoutALogLinePerXid() throws Exception {
    try (LogCapture log = LogCapture.of(Agent.class)) {
      startAgent();

      // 800 XIDs, GPU after GPU: each handled with its own publish, the eighth GPU's first XID
      // waited seconds behind the others' repeats, and each repeat logged a line.
      for (int gpu = 0; gpu < 8; gpu++) {
        for (int i = 0; i < 100; i++) {
          nvml.control()
              .acceld_fake_inject_event(
                  gpu, NvmlEventType.XID_CRITICAL_ERROR, i % 2 == 0 ? 48 : 63);
        }
      }

      kubelet.awaitDevices(
          NVIDIA,
          l -> l.size() == 8 && l.stream().noneMatch(DeviceState::healthy),
          Duration.ofSeconds(2));
      // Events are handled in order: once this one shows, the storm was handled.
      xid(7, 94);
      Eventually.await(
          "the last XID handled",
          () -> log.warnings().stream().anyMatch(w -> w.contains("XID 94")));
      assertThat(log.warnings()).as("a line or a few per GPU, not one per XID").hasSizeLessThan(40);
    }
  }

  @Test
  void anIgnoredXidLeavesTheGpuHealthy() throws Exception {
    startAgent();

    xid(1, 13);
    xid(2, 79); // events are handled in order: once this one shows, the XID 13 was handled too

    await(unhealthy(uuid(2)));
  }

  @Test
  void operatorsCanUnignoreAnXid() throws Exception {
    startAgent("xid-ignore-remove", "13");

    xid(1, 13);

    await(unhealthy(uuid(1)));
  }

  @Test
  void aDoubleBitEccErrorMarksTheGpuAndSingleBitOnesDoNot() throws Exception {
    startAgent();

    nvml.control().acceld_fake_inject_event(6, NvmlEventType.SINGLE_BIT_ECC_ERROR, 0);
    nvml.control().acceld_fake_inject_event(5, NvmlEventType.DOUBLE_BIT_ECC_ERROR, 0);

    await(unhealthy(uuid(5)));
  }

  @Test
  void aLostGpuIsTheOnlyOneMarkedAndNvmlIsNotHammeredAfterwards() throws Exception {
    startAgent("health-probe-interval", "5s"); // the default

    nvml.control().acceld_fake_set_lost(4, 1);

    await(unhealthy(uuid(4)));
    long before = nvml.control().acceld_fake_call_count();
    long start = System.nanoTime();
    // A rate needs a window: measure three seconds of steady state.
    Thread.sleep(3000);
    double seconds = (System.nanoTime() - start) / 1e9;
    double rate = (nvml.control().acceld_fake_call_count() - before) / seconds;
    System.out.printf("NVML calls per second with a GPU lost: %.1f%n", rate);
    assertThat(rate).as("NVML calls per second with a GPU lost").isLessThan(20);
    assertThat(kubelet.devices(NVIDIA)).filteredOn(DeviceState::healthy).hasSize(7);
  }

  @Test
  void aLostGpuThatAnswersAgainRecovers() throws Exception {
    startAgent();
    nvml.control().acceld_fake_set_lost(0, 1);
    await(unhealthy(uuid(0)));

    nvml.control().acceld_fake_set_lost(0, 0);

    await(unhealthy());
    xidUntilSeen(0, 79, SOON); // and it is watched for events again
    await(unhealthy(uuid(0)));
  }

  @Test
  void aFaultIsLoggedAsWarningAndItsRecoveryAsInfo() throws Exception {
    try (LogCapture log = LogCapture.of(Agent.class)) {
      startAgent();
      nvml.control().acceld_fake_set_lost(0, 1);
      await(unhealthy(uuid(0)));
      nvml.control().acceld_fake_set_lost(0, 0);
      await(unhealthy());

      String recovered = "Device nvidia.com/gpu " + uuid(0) + " at ";
      Eventually.await(
          "recovery logged",
          () ->
              log.infos().stream().anyMatch(l -> l.startsWith(recovered) && l.contains("Healthy")));
      assertThat(log.warnings())
          .anySatisfy(l -> assertThat(l).startsWith(recovered).contains("is now Unhealthy"))
          .noneSatisfy(l -> assertThat(l).contains("is now Healthy"));
    }
  }

  @Test
  void aFailingEventWaitCondemnsNoGpuAndMonitoringResumes() throws Exception {
    startAgent();

    nvml.control().acceld_fake_fail_waits(NvmlReturn.ERROR_UNKNOWN, 2);
    // Two failed waits: back off 1 s, rebuild, back off 2 s, rebuild, then watch again.
    xidUntilSeen(7, 79, Duration.ofSeconds(10));

    assertThat(kubelet.devices(NVIDIA)).filteredOn(DeviceState::healthy).hasSize(7);
  }

  @Test
  void waitsReportingALostGpuThatEveryGpuDeniesCondemnNoOne() throws Exception {
    startAgent("health-probe-interval", "5s");

    // As an NVML that fails every wait while some GPU anywhere is lost.
    nvml.control().acceld_fake_fail_waits(NvmlReturn.ERROR_GPU_IS_LOST, 3);
    xidUntilSeen(6, 79, Duration.ofSeconds(10));

    assertThat(kubelet.devices(NVIDIA)).filteredOn(DeviceState::healthy).hasSize(7);
  }

  @Test
  void pendingRetiredPagesMarkTheGpuUntilTheyAreRetired() throws Exception {
    startAgent();

    nvml.control().acceld_fake_set_retired_pending(5, 1);
    List<DeviceState> devices = await(unhealthy(uuid(5)));
    assertThat(devices).filteredOn(DeviceState::healthy).hasSize(7);

    nvml.control().acceld_fake_set_retired_pending(5, 0);
    await(unhealthy());
  }

  @Test
  void xidMarksEndWithTheQuarantine() throws Exception {
    startAgent("health-quarantine", "1s");

    xid(2, 48);
    await(unhealthy(uuid(2)));

    await(unhealthy());
  }

  @Test
  void aVanishedDeviceNodeMarksItsGpuAndItsReturnHealsIt() throws Exception {
    startAgent();

    HotPlug.removeDevNode(node.tree(), "nvidia6");
    await(unhealthy(uuid(6)));

    node.tree().devNode("nvidia6");
    await(unhealthy());
  }

  @Test
  void aPciDeviceUnpluggedLeavesTheListAndComesBack() throws Exception {
    startAgent();

    HotPlug.unplug(node.tree(), node.gpus().get(1).pciAddress());
    await(l -> l.size() == 7 && l.stream().noneMatch(d -> d.id().equals(uuid(1))));

    HotPlug.replug(node, 1);
    await(l -> l.size() == 8 && l.stream().allMatch(DeviceState::healthy));
  }

  @Test
  void healthMarksSurviveAKubeletRestart() throws Exception {
    startAgent();
    xid(3, 79);
    await(unhealthy(uuid(3)));
    int before = kubelet.registrations().get(NVIDIA);

    kubelet.restart(Duration.ofMillis(300));

    kubelet.awaitRegistration(NVIDIA, r -> r.sequence() > before, Duration.ofSeconds(5));
    await(l -> l.size() == 8 && unhealthy(uuid(3)).test(l));
  }
}
