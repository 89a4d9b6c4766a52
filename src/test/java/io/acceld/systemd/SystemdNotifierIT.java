package io.acceld.systemd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import io.acceld.testing.NotifyReceiver;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sd_notify through the real libc binding to a real AF_UNIX datagram socket. */
class SystemdNotifierIT {
  @TempDir Path dir;

  private NotifyReceiver systemd;
  private SystemdNotifier notifier;

  @AfterEach
  void stop() throws Exception {
    if (notifier != null) {
      notifier.close();
    }
    if (systemd != null) {
      systemd.close();
    }
  }

  @Test
  void readyFollowsRegistrationWithAStatusLineForEachChange() throws Exception {
    systemd = NotifyReceiver.listen(dir.resolve("notify").toString());
    AtomicBoolean ready = new AtomicBoolean();
    notifier =
        SystemdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", systemd.address()), ready::get)
            .get();
    notifier.start();

    Eventually.await("a starting status", () -> !systemd.datagrams().isEmpty());
    assertThat(systemd.datagrams().get(0)).startsWith("STATUS=Starting");
    assertThat(systemd.received("READY=1")).isFalse();

    ready.set(true);
    Eventually.await("READY=1", () -> systemd.received("READY=1"));
    assertThat(systemd.datagrams()).hasSize(2);
    assertThat(systemd.datagrams().get(1)).contains("STATUS=Serving");

    notifier.close();
    notifier = null;
    Eventually.await("STOPPING=1", () -> systemd.received("STOPPING=1"));
    // READY=1 is said once; nothing is repeated while nothing changes
    assertThat(systemd.datagrams().stream().filter(d -> d.contains("READY=1"))).hasSize(1);
  }

  @Test
  void theWatchdogIsPettedAtHalfItsIntervalOnAnAbstractSocket() throws Exception {
    systemd = NotifyReceiver.listen("@acceld-notify-test-" + UUID.randomUUID());
    notifier =
        SystemdNotifier.fromEnvironment(
                Map.of("NOTIFY_SOCKET", systemd.address(), "WATCHDOG_USEC", "200000"), () -> true)
            .get();
    notifier.start();

    Eventually.await(
        "three watchdog pings",
        () -> systemd.datagrams().stream().filter(d -> d.contains("WATCHDOG=1")).count() >= 3);
    assertThat(systemd.datagrams().get(0)).contains("READY=1").contains("WATCHDOG=1");
  }

  @Test
  void withoutNotifySocketThereIsNoNotifier() {
    assertThat(SystemdNotifier.fromEnvironment(Map.of("WATCHDOG_USEC", "1000000"), () -> true))
        .isEmpty();
    assertThat(SystemdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", ""), () -> true)).isEmpty();
  }

  @Test
  void malformedVariablesAreNamedInTheError() {
    assertThatThrownBy(
            () ->
                SystemdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", "run/notify"), () -> true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NOTIFY_SOCKET")
        .hasMessageContaining("run/notify");
    assertThatThrownBy(
            () ->
                SystemdNotifier.fromEnvironment(
                    Map.of("NOTIFY_SOCKET", "/run/notify", "WATCHDOG_USEC", "soon"), () -> true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("WATCHDOG_USEC");
    String otherPid = "1" + ProcessHandle.current().pid();
    assertThat(
            SystemdNotifier.watchdog(Map.of("WATCHDOG_USEC", "1000000", "WATCHDOG_PID", otherPid)))
        .as("a watchdog meant for another process")
        .isEmpty();
  }

  @Test
  void aMissingSocketIsRetriedNotFatal() throws Exception {
    String later = dir.resolve("later").toString();
    notifier = SystemdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", later), () -> true).get();
    try (LogCapture logs = LogCapture.of(SystemdNotifier.class)) {
      notifier.start();
      Eventually.await("a warning that systemd cannot be told", () -> !logs.warnings().isEmpty());
      assertThat(notifier.alive()).isTrue();

      systemd = NotifyReceiver.listen(later);
      Eventually.await("READY=1 once the socket exists", () -> systemd.received("READY=1"));
      assertThat(logs.warnings()).as("one warning for the whole run of failures").hasSize(1);
    }
  }
}
