package io.acceld.mesos.executor;

import static io.acceld.mesos.executor.MesosFixtures.shell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.proto.mesos.v1.CommandInfo;
import io.acceld.testing.Eventually;
import io.acceld.testing.ProcessCleanup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one place a container's process is started: held at its gate until released. */
class ProcessStarterTest {
  /** The bridge's directory: sandboxes/ and the agent's exits/ side by side, as in Containers. */
  @TempDir Path state;

  Path sandboxes;

  @org.junit.jupiter.api.BeforeEach
  void sandboxesUnderState() {
    sandboxes = state.resolve("sandboxes");
  }

  @AfterEach
  void cleanUp() {
    ProcessCleanup.killEverythingStarted();
  }

  static ProcessStarter starter(Path sandboxes) {
    CommandLine commandLine = new CommandLine("setsid", "/bin/sh");
    return new ProcessStarter(sandboxes, commandLine, new Spawner(commandLine, Signals.load()));
  }

  static Map<String, String> path() {
    return Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
  }

  @Test
  void theCommandRunsOnlyOnceReleased() throws Exception {
    ProcessStarter.Started started =
        starter(sandboxes)
            .start("c-1", shell(": > ran"), box -> path(), MesosFixtures.unfenced("c"));
    Path ran = started.sandbox().dir().resolve("ran");

    Thread.sleep(200);
    assertThat(ran).doesNotExist();
    assertThat(started.tree().isAlive()).isTrue();

    started.release();
    Eventually.await("the released command ran", () -> Files.exists(ran));
  }

  @Test
  void anAbandonedStartRunsNothingAndLeavesNoProcess() throws Exception {
    ProcessStarter.Started started =
        starter(sandboxes)
            .start("c-2", shell(": > ran"), box -> path(), MesosFixtures.unfenced("c"));

    started.abandon();

    Eventually.await("the wrapper is gone", () -> !started.tree().isAlive());
    assertThat(started.sandbox().dir().resolve("ran")).doesNotExist();
  }

  @Test
  void theEnvironmentIsMadeForTheNewSandboxAndIsTheProcessWholeEnvironment() throws Exception {
    AtomicReference<Sandbox> seen = new AtomicReference<>();
    ProcessStarter.Started started =
        starter(sandboxes)
            .start(
                "c-3",
                shell("printf '%s' \"$WHERE\" > where; printf '%s' \"${HOME-unset}\" > home"),
                box -> {
                  seen.set(box);
                  return Map.of("WHERE", box.dir().toString());
                },
                MesosFixtures.unfenced("c"));
    started.release();

    Path dir = started.sandbox().dir();
    assertThat(seen.get()).isEqualTo(started.sandbox());
    assertThat(dir).isEqualTo(sandboxes.resolve("c-3"));
    Eventually.await("the command wrote its files", () -> Files.exists(dir.resolve("home")));
    Eventually.await(
        "the command wrote its environment",
        () -> readOrEmpty(dir.resolve("home")).equals("unset"));
    assertThat(readOrEmpty(dir.resolve("where"))).isEqualTo(dir.toString());
  }

  @Test
  void aCommandWithoutValueIsRefusedNamingWhy() {
    assertThatThrownBy(
            () ->
                starter(sandboxes)
                    .start(
                        "c-4",
                        CommandInfo.getDefaultInstance(),
                        b -> path(),
                        MesosFixtures.unfenced("c")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'value'");
  }

  private static String readOrEmpty(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }
}
