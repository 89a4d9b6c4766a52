package io.acceld.mesos.executor;

import static io.acceld.mesos.executor.MesosFixtures.shell;
import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.ProcessCleanup;
import io.acceld.util.NamedThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one place a container's exit is observed, and how it ended is read. */
class ProcessWatchTest {
  /** The bridge's directory: sandboxes/ and the agent's exits/ side by side, as in Containers. */
  @TempDir Path state;

  Path sandboxes;

  @org.junit.jupiter.api.BeforeEach
  void sandboxesUnderState() {
    sandboxes = state.resolve("sandboxes");
  }

  final ExecutorService work = Executors.newSingleThreadExecutor(new NamedThreads("watch-test"));

  @AfterEach
  void cleanUp() {
    work.shutdownNow();
    ProcessCleanup.killEverythingStarted();
  }

  @Test
  void anExitIsReportedOnTheContainersThreadsWithTheCommandsStatus() throws Exception {
    ProcessStarter.Started started =
        ProcessStarterTest.starter(sandboxes)
            .start(
                "c-1",
                shell("exit 3"),
                box -> ProcessStarterTest.path(),
                MesosFixtures.unfenced("c"));
    CompletableFuture<ProcessWatch.Exit> exit = new CompletableFuture<>();
    CompletableFuture<String> thread = new CompletableFuture<>();

    new ProcessWatch(work)
        .watch(
            started.tree(),
            started.sandbox(),
            started.fence(),
            e -> {
              thread.complete(Thread.currentThread().getName());
              exit.complete(e);
            });
    started.release();

    ProcessWatch.Exit ended = exit.get(10, TimeUnit.SECONDS);
    assertThat(thread.get()).startsWith("watch-test");
    assertThat(ended.sandbox()).isEqualTo(started.sandbox());
    assertThat(ended.leaderExit()).contains(3);
    assertThat(ended.describe().succeeded()).isFalse();
    assertThat(ended.describe().message(ended.leaderExit()))
        .isEqualTo("Command exited with status 3");
  }

  @Test
  void anExitWhileTheAgentWasDownIsReadFromTheRecordedStatusAlone() throws Exception {
    Sandbox box = Sandbox.create(sandboxes, "c-2");
    Files.writeString(box.exitStatusFile(), "0\n");

    ProcessWatch.Exit ended = ProcessWatch.whileAgentWasDown(box, MesosFixtures.unfenced("c"));

    assertThat(ended.leaderExit()).isEqualTo(Optional.empty());
    assertThat(ended.describe().succeeded()).isTrue();
    assertThat(ended.describe().message(ended.leaderExit()))
        .isEqualTo("Command exited with status 0");
  }

  @Test
  void theWrapperWritesTheStatusOutsideTheSandboxSoALinkThereCannotRedirectIt() throws Exception {
    Path target = state.resolve("not-the-tasks");
    ProcessStarter.Started started =
        ProcessStarterTest.starter(sandboxes)
            .start(
                "c-3",
                // what a task owning its sandbox could do: plant a link where the status used to go
                shell("ln -s " + target + " " + Sandbox.LEGACY_EXIT_STATUS + "; exit 4"),
                box -> ProcessStarterTest.path(),
                MesosFixtures.unfenced("c"));
    CompletableFuture<ProcessWatch.Exit> exit = new CompletableFuture<>();
    new ProcessWatch(work)
        .watch(started.tree(), started.sandbox(), started.fence(), exit::complete);
    started.release();

    ProcessWatch.Exit ended = exit.get(10, TimeUnit.SECONDS);
    assertThat(started.sandbox().exitStatusFile().startsWith(started.sandbox().dir())).isFalse();
    assertThat(Files.readString(started.sandbox().exitStatusFile())).isEqualTo("4\n");
    assertThat(target).doesNotExist();
    assertThat(ended.describe().status()).contains(4);
  }
}
