package io.acceld.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

class ProcessLeakExtensionTest {
  private Process wrapper;

  @AfterEach
  void killWrapper() {
    if (wrapper != null) {
      wrapper.destroyForcibly();
    }
  }

  /** Run only inside {@link #aTestThatLeavesAChildRunningFailsNamingItAndTheChildIsKilled}. */
  static class LeavesASleepRunning {
    static volatile long leaked;

    @Test
    void startsAndForgets() throws IOException {
      leaked = new ProcessBuilder("sleep", "3600").start().pid();
    }
  }

  @Test
  void aTestThatLeavesAChildRunningFailsNamingItAndTheChildIsKilled() {
    EngineExecutionResults results =
        EngineTestKit.engine("junit-jupiter")
            .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
            .selectors(selectClass(LeavesASleepRunning.class))
            .execute();

    List<Event> failed = results.testEvents().failed().list();
    assertThat(failed).hasSize(1);
    Throwable why =
        failed
            .get(0)
            .getPayload(TestExecutionResult.class)
            .orElseThrow()
            .getThrowable()
            .orElseThrow();
    long pid = LeavesASleepRunning.leaked;
    assertThat(why)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("startsAndForgets() left 1 process(es) running")
        .hasMessageContaining("pid " + pid + " (sleep 3600)");
    Eventually.await(
        "the leaked sleep to be killed",
        () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
  }

  /**
   * A task's wrapper leads its own session; killing the wrapper alone re-parents its child to init,
   * where it is nobody's descendant. The child is still the test's, by its session.
   */
  @Test
  void aReparentedChildIsStillFoundByItsSession() throws Exception {
    ProcessLeakExtension.Watch watch = new ProcessLeakExtension.Watch(ProcessTable.read());
    wrapper =
        new ProcessBuilder("setsid", "sh", "-c", "sleep 3600 & echo $!; exec cat")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    long child =
        Long.parseLong(
            new BufferedReader(
                    new InputStreamReader(wrapper.getInputStream(), StandardCharsets.US_ASCII))
                .readLine());
    watch.sample(ProcessTable.read()); // what the sampler thread does while a test runs

    wrapper.destroyForcibly().waitFor();
    Eventually.await(
        "the child to be re-parented",
        () -> ProcessTable.read().get(child).map(e -> e.ppid() != wrapper.pid()).orElse(false));
    assertThat(ProcessHandle.current().descendants().map(ProcessHandle::pid)).doesNotContain(child);

    assertThat(watch.survivors(ProcessTable.read()))
        .extracting(ProcessTable.Key::pid)
        .containsExactly(child);
    ProcessHandle.of(child).ifPresent(ProcessHandle::destroyForcibly);
    Eventually.await("the child to die", () -> watch.survivors(ProcessTable.read()).isEmpty());
  }
}
