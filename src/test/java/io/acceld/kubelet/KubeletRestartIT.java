package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.simulate.HotPlug;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.Eventually;
import io.acceld.testing.kubelet.DeviceState;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.testing.kubelet.Registration;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kubelet restarts and late kubelets: the agent recovers with no operator action. */
class KubeletRestartIT {
  static final String NVIDIA = "nvidia.com/gpu";

  /** The target: registered again within 5 s of the new kubelet.sock. */
  static final Duration RECOVERY = Duration.ofSeconds(5);

  @TempDir Path root;
  FixtureNode node;
  final List<AutoCloseable> closers = new ArrayList<>();

  @BeforeEach
  void node() {
    node = Fixtures.eightGpuNode(root.resolve("node"));
  }

  @AfterEach
  void close() throws Exception {
    for (int i = closers.size() - 1; i >= 0; i--) {
      closers.get(i).close();
    }
  }

  <T extends AutoCloseable> T keep(T c) {
    closers.add(c);
    return c;
  }

  AgentHarness startAgent(KubeletDouble kubelet) throws Exception {
    return keep(
        AgentHarness.on(node.tree())
            .flag("device-plugin-dir", kubelet.deviceDir().toString())
            .flag("rescan-interval", "200ms")
            .start(root.resolve("etc")));
  }

  @Test
  void reRegistersWithinFiveSecondsAfterAKubeletRestartThatLeavesNoSocketForAMoment()
      throws Exception {
    KubeletDouble kubelet = keep(KubeletDouble.start(root.resolve("kubelet/device-plugins")));
    AgentHarness agent = startAgent(kubelet);
    Registration first = kubelet.awaitRegistered(NVIDIA, Duration.ofSeconds(3));

    kubelet.restart(Duration.ofMillis(800));
    Instant socketBack = Instant.now();

    Registration again =
        kubelet.awaitRegistration(NVIDIA, r -> r.sequence() > first.sequence(), RECOVERY);
    assertThat(Duration.between(socketBack, again.registeredAt())).isLessThan(RECOVERY);
    assertThat(kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, RECOVERY))
        .allSatisfy(d -> assertThat(d.healthy()).isTrue());
    // The double records a registration when the request arrives; the agent marks itself
    // registered when the answer does, a moment later.
    Eventually.await("ready again", RECOVERY, () -> agent.kubelet().ready());
  }

  @Test
  void healthSurvivesReRegistration() throws Exception {
    KubeletDouble kubelet = keep(KubeletDouble.start(root.resolve("kubelet/device-plugins")));
    HotPlug.removeDevNode(node.tree(), "nvidia3");
    startAgent(kubelet);
    String sick = node.gpus().get(3).pciAddress();
    Registration first = kubelet.awaitRegistered(NVIDIA, Duration.ofSeconds(3));

    kubelet.restart(Duration.ofMillis(300));
    kubelet.awaitRegistration(NVIDIA, r -> r.sequence() > first.sequence(), RECOVERY);

    List<DeviceState> devices = kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, RECOVERY);
    assertThat(devices)
        .filteredOn(d -> d.id().equals(sick))
        .singleElement()
        .satisfies(d -> assertThat(d.health()).isEqualTo("Unhealthy"));
    assertThat(devices).filteredOn(DeviceState::healthy).hasSize(7);
  }

  @Test
  void registersOnceTheKubeletArrivesWhenItsSocketWasAbsentAtStart() throws Exception {
    KubeletDouble kubelet =
        keep(KubeletDouble.builder(root.resolve("kubelet/device-plugins")).startLate());
    AgentHarness agent = startAgent(kubelet);
    assertThat(agent.kubelet().ready()).isFalse();

    kubelet.listen();
    Instant listening = Instant.now();

    Registration r = kubelet.awaitRegistered(NVIDIA, RECOVERY);
    assertThat(Duration.between(listening, r.registeredAt())).isLessThan(RECOVERY);
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, RECOVERY);
  }

  @Test
  void reRegistersWhenOnlyKubeletSockIsRecreated() throws Exception {
    KubeletDouble kubelet = keep(KubeletDouble.start(root.resolve("kubelet/device-plugins")));
    startAgent(kubelet);
    Registration first = kubelet.awaitRegistered(NVIDIA, Duration.ofSeconds(3));

    kubelet.relistenOnly();

    kubelet.awaitRegistration(NVIDIA, r -> r.sequence() > first.sequence(), RECOVERY);
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, RECOVERY);
  }

  @Test
  void anUnpluggedGpuLeavesTheListAtTheNextScanAndReturnsWhenPluggedBack() throws Exception {
    KubeletDouble kubelet = keep(KubeletDouble.start(root.resolve("kubelet/device-plugins")));
    startAgent(kubelet);
    kubelet.awaitDevices(NVIDIA, l -> l.size() == 8, Duration.ofSeconds(3));

    HotPlug.unplug(node.tree(), node.gpus().get(6).pciAddress());

    kubelet.awaitDevices(NVIDIA, l -> l.size() == 7, Duration.ofSeconds(3));
  }
}
