package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.deviceplugin.v1beta1.RegisterRequest;
import io.acceld.proto.deviceplugin.v1beta1.RegistrationGrpc;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.AgentHarness;
import io.acceld.testing.Eventually;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.transport.UnixGrpc;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Registration against kubelets that misbehave in the two ways issue 11 names, each played by a
 * real {@code v1beta1.Registration} server on a real {@code kubelet.sock}: one whose Register never
 * answers (its dial-back is stuck), and one that accepts Register but never dials back for
 * ListAndWatch. The agent must try again after about two seconds, not after the 15 s Register
 * deadline or the next kubelet restart.
 *
 * <p>And {@link KubeletPublisher#awaitFirstOutcome}, which holds back the agent's parts that
 * Register does not need: it ends when Register has its answer, whichever answer, and never waits
 * out its bound for a kubelet that is not there (the kubelet double on a real socket, or none).
 */
class KubeletRegistrarIT {
  @TempDir Path root;
  final List<AutoCloseable> closers = new ArrayList<>();
  final UnixGrpc grpc = new UnixGrpc("registrar-it", 1);
  final ExecutorService calls = Executors.newCachedThreadPool();

  @AfterEach
  void close() throws Exception {
    for (int i = closers.size() - 1; i >= 0; i--) {
      closers.get(i).close();
    }
    calls.shutdownNow();
    grpc.close();
  }

  /** A kubelet.sock whose Register handler does what {@code answer} says, recording each call. */
  final class StubKubelet extends RegistrationGrpc.RegistrationImplBase {
    final List<Instant> registers = new CopyOnWriteArrayList<>();
    final boolean answer;

    StubKubelet(boolean answer) {
      this.answer = answer;
    }

    @Override
    public void register(RegisterRequest request, StreamObserver<Empty> response) {
      registers.add(Instant.now());
      if (answer) {
        response.onNext(Empty.getDefaultInstance());
        response.onCompleted();
      } // else: hang, as a kubelet stuck dialling a missing plugin socket does
    }

    Path start(Path dir) throws Exception {
      Files.createDirectories(dir);
      Path socket = dir.resolve(KubeletPublisher.KUBELET_SOCKET);
      Server server = grpc.startServer(socket, List.of(this), List.of(), calls);
      closers.add(() -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
      return dir;
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
  void aRegisterTheKubeletNeverAnswersIsSentAgainAfterTwoSeconds() throws Exception {
    StubKubelet kubelet = new StubKubelet(false);
    agent(kubelet.start(root.resolve("device-plugins")));

    Eventually.await(
        "a second Register", Duration.ofSeconds(5), () -> kubelet.registers.size() >= 2);
    Duration gap = Duration.between(kubelet.registers.get(0), kubelet.registers.get(1));
    assertThat(gap).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(4));
  }

  @Test
  void aRegisterAcceptedWithoutAListAndWatchIsSentAgainAfterTwoSeconds() throws Exception {
    StubKubelet kubelet = new StubKubelet(true);
    agent(kubelet.start(root.resolve("device-plugins")));

    Eventually.await(
        "a second Register", Duration.ofSeconds(5), () -> kubelet.registers.size() >= 2);
    Duration gap = Duration.between(kubelet.registers.get(0), kubelet.registers.get(1));
    assertThat(gap).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(4));
  }

  /** Far longer than any first outcome should take: reaching it means the outcome was missed. */
  static final Duration OUTCOME_BOUND = Duration.ofSeconds(60);

  @Test
  void theFirstOutcomeIsOnceTheKubeletHasRegisteredEveryResource() throws Exception {
    KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
    closers.add(kubelet);
    AgentHarness agent = agent(kubelet.deviceDir());

    long start = System.nanoTime();
    assertThat(agent.kubelet().awaitFirstOutcome(OUTCOME_BOUND)).isTrue();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(OUTCOME_BOUND.dividedBy(2));
    assertThat(kubelet.registration("nvidia.com/gpu")).isPresent();
    assertThat(agent.kubelet().ready()).isTrue();
  }

  @Test
  void theFirstOutcomeIsAFailedRegisterWithoutWaitingOutItsBound() throws Exception {
    // The kubelet's directory, but no kubelet.sock in it: every Register fails at once
    Path deviceDir = Files.createDirectories(root.resolve("kubelet/device-plugins"));
    AgentHarness agent = agent(deviceDir);

    long start = System.nanoTime();
    assertThat(agent.kubelet().awaitFirstOutcome(OUTCOME_BOUND)).isFalse();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(OUTCOME_BOUND.dividedBy(2));
  }

  @Test
  void theFirstOutcomeIsAtOnceWhileTheKubeletsDirectoriesDoNotExist() throws Exception {
    AgentHarness agent = agent(root.resolve("no-kubelet-yet/device-plugins"));

    long start = System.nanoTime();
    assertThat(agent.kubelet().awaitFirstOutcome(OUTCOME_BOUND)).isFalse();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(OUTCOME_BOUND.dividedBy(2));
  }
}
