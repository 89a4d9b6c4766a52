package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KubeletPublisher#awaitFirstOutcome}, which holds back the agent's parts that Register does
 * not need: it ends when Register has its answer, whichever answer, and never waits out its bound
 * for a kubelet that is not there. A kubelet double on a real socket, or none.
 */
class KubeletFirstOutcomeIT {
  /** Far longer than any wait here should take: reaching it means the outcome was missed. */
  static final Duration BOUND = Duration.ofSeconds(60);

  @TempDir Path root;
  final List<AutoCloseable> closers = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = closers.size() - 1; i >= 0; i--) {
      closers.get(i).close();
    }
  }

  AgentHarness agent(Path deviceDir) throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    AgentHarness agent =
        AgentHarness.on(node.tree())
            .flag("device-plugin-dir", deviceDir.toString())
            .start(root.resolve("etc"));
    closers.add(agent);
    return agent;
  }

  @Test
  void endsOnceTheKubeletHasRegisteredEveryResource() throws Exception {
    KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
    closers.add(kubelet);
    AgentHarness agent = agent(kubelet.deviceDir());

    long start = System.nanoTime();
    assertThat(agent.kubelet().awaitFirstOutcome(BOUND)).isTrue();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND.dividedBy(2));
    assertThat(kubelet.registration("nvidia.com/gpu")).isPresent();
    assertThat(agent.kubelet().ready()).isTrue();
  }

  @Test
  void endsOnAFailedRegisterWithoutWaitingOutItsBound() throws Exception {
    // The kubelet's directory, but no kubelet.sock in it: every Register fails at once
    Path deviceDir = Files.createDirectories(root.resolve("kubelet/device-plugins"));
    AgentHarness agent = agent(deviceDir);

    long start = System.nanoTime();
    assertThat(agent.kubelet().awaitFirstOutcome(BOUND)).isFalse();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND.dividedBy(2));
  }

  @Test
  void endsAtOnceWhileTheKubeletsDirectoriesDoNotExist() throws Exception {
    AgentHarness agent = agent(root.resolve("no-kubelet-yet/device-plugins"));

    long start = System.nanoTime();
    assertThat(agent.kubelet().awaitFirstOutcome(BOUND)).isFalse();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND.dividedBy(2));
  }
}
