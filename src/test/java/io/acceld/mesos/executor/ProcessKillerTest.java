package io.acceld.mesos.executor;

import static io.acceld.mesos.executor.MesosFixtures.shell;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Eventually;
import io.acceld.testing.ProcessCleanup;
import io.acceld.util.NamedThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one place a container's processes are killed: SIGTERM, then SIGKILL after the grace. */
class ProcessKillerTest {
  /** The bridge's directory: sandboxes/ and the agent's exits/ side by side, as in Containers. */
  @TempDir Path state;

  Path sandboxes;

  @org.junit.jupiter.api.BeforeEach
  void sandboxesUnderState() {
    sandboxes = state.resolve("sandboxes");
  }

  final ScheduledExecutorService work =
      Executors.newSingleThreadScheduledExecutor(new NamedThreads("killer-test"));

  @AfterEach
  void cleanUp() {
    work.shutdownNow();
    ProcessCleanup.killEverythingStarted();
  }

  /** A command that ignores SIGTERM, so only the SIGKILL ends it; running once this returns. */
  private ProcessTree stubborn(String containerId) throws Exception {
    ProcessStarter.Started started =
        ProcessStarterTest.starter(sandboxes)
            .start(
                containerId,
                shell("trap '' TERM; : > started; exec sleep 600"),
                box -> ProcessStarterTest.path(),
                MesosFixtures.unfenced("c"));
    started.release();
    Path mark = started.sandbox().dir().resolve("started");
    Eventually.await("the command started", () -> Files.exists(mark));
    return started.tree();
  }

  @Test
  void aGracefulKillEndsTheTreeOnlyOnceItsGraceHasPassed() throws Exception {
    ProcessTree tree = stubborn("c-1");
    ProcessKiller killer = new ProcessKiller(tree, MesosFixtures.unfenced("c"), work);

    killer.terminate(Duration.ofHours(1));
    Thread.sleep(300);

    assertThat(tree.isAlive()).isTrue();
    assertThat(killer.escalating()).isTrue();

    // A shorter grace replaces the pending SIGKILL.
    killer.terminate(Duration.ofMillis(50));

    Eventually.await("the SIGKILL after the shorter grace", () -> !tree.isAlive());
    Eventually.await("the escalation is over", () -> !killer.escalating());
  }

  @Test
  void aCancelledEscalationSendsNoSigkill() throws Exception {
    ProcessTree tree = stubborn("c-2");
    ProcessKiller killer = new ProcessKiller(tree, MesosFixtures.unfenced("c"), work);

    killer.terminate(Duration.ofMillis(200));
    killer.cancelEscalation();
    Thread.sleep(500);

    assertThat(killer.escalating()).isFalse();
    assertThat(tree.isAlive()).isTrue();
  }

  @Test
  void aKillEndsTheWholeTreeAtOnce() throws Exception {
    ProcessTree tree = stubborn("c-3");
    ProcessKiller killer = new ProcessKiller(tree, MesosFixtures.unfenced("c"), work);

    killer.kill();

    Eventually.await("the tree is gone", () -> !tree.isAlive());
    assertThat(killer.escalating()).isFalse();
  }
}
