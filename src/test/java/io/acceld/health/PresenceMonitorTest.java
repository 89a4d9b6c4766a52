package io.acceld.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The monitor over real fixture trees: a sysfs PCI bus and a /dev with its subdirectories. */
class PresenceMonitorTest {
  /** Longer than any test: a change seen under it came from an event, not from the poll. */
  private static final Duration NO_POLL = Duration.ofHours(1);

  private static final Duration WITHIN = Duration.ofSeconds(10);

  @TempDir Path root;

  private final Semaphore rediscoveries = new Semaphore(0);

  private Path sysfs() {
    return root.resolve("sys");
  }

  private Path dev() {
    return root.resolve("dev");
  }

  private PresenceMonitor started(Duration poll) throws Exception {
    Files.createDirectories(sysfs().resolve("bus/pci/devices/0000:3b:00.0"));
    Files.createDirectories(dev().resolve("dri"));
    Files.createFile(dev().resolve("nvidia0"));
    PresenceMonitor monitor = new PresenceMonitor(sysfs(), dev(), rediscoveries::release, poll);
    monitor.start();
    return monitor;
  }

  private boolean rediscovered() throws InterruptedException {
    return rediscoveries.tryAcquire(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void aPciDeviceLeavingIsSeenByThePollAndAskedForOnce() throws Exception {
    try (PresenceMonitor monitor = started(Duration.ofMillis(20))) {
      Files.delete(sysfs().resolve("bus/pci/devices/0000:3b:00.0"));
      assertThat(rediscovered()).isTrue();
      // Many polls of an unchanged bus later, a second change is the only other request.
      Files.createDirectory(sysfs().resolve("bus/pci/devices/0000:5e:00.0"));
      assertThat(rediscovered()).isTrue();
      assertThat(rediscoveries.availablePermits()).isZero();
    }
  }

  @Test
  void aDeviceNodeGoingAwayIsSeenFromItsEventWithoutWaitingForThePoll() throws Exception {
    try (PresenceMonitor monitor = started(NO_POLL)) {
      Files.delete(dev().resolve("nvidia0"));
      assertThat(rediscovered()).isTrue();
      Files.createFile(dev().resolve("dri/renderD128"));
      assertThat(rediscovered()).isTrue();
    }
  }

  @Test
  void aDeviceNodeDirectoryMadeAfterTheStartIsWatchedToo() throws Exception {
    // No /dev/accel when the agent started; its driver loads later and makes accel0 in it.
    try (PresenceMonitor monitor = started(NO_POLL)) {
      Files.createDirectory(dev().resolve("accel"));
      assertThat(rediscovered()).isTrue(); // /dev changed: a new directory in it
      boolean seen = false;
      // A node made before the new directory's watch is taken has no event; the next one does.
      for (int i = 0; i < 10 && !seen; i++) {
        Files.createFile(dev().resolve("accel/accel" + i));
        seen = rediscoveries.tryAcquire(2, TimeUnit.SECONDS);
      }
      assertThat(seen).as("a node made in /dev/accel asks for a rediscovery").isTrue();
    }
  }
}
