package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoopWatchdogTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final LoopWatchdog watchdog = new LoopWatchdog("Device discovery", now::get);

  @Test
  void aTurnThatRunsPastTheLimitIsStuckWithTheReason() {
    watchdog.turnBegins();
    now.addAndGet(Duration.ofSeconds(30).toNanos());
    assertThat(watchdog.stuck(Duration.ofMinutes(1))).isEmpty();

    now.addAndGet(Duration.ofSeconds(65).toNanos());
    assertThat(watchdog.stuck(Duration.ofMinutes(1)))
        .hasValueSatisfying(
            r -> assertThat(r).contains("Device discovery is stuck").contains("95 s"));

    watchdog.turnEnds();
    assertThat(watchdog.stuck(Duration.ofMinutes(1))).isEmpty();
  }

  @Test
  void anIdleLoopIsNeverStuck() {
    watchdog.turnBegins();
    watchdog.turnEnds();
    now.addAndGet(Duration.ofHours(5).toNanos());
    assertThat(watchdog.stuck(Duration.ofMinutes(1))).isEmpty();
  }

  @Test
  void aPeriodicTaskBlockedInATurnReportsItselfStuckWhileStillAlive() throws Exception {
    CountDownLatch blocked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (PeriodicTask task =
        PeriodicTask.every(
            "test-stuck",
            "Stuck loop",
            Duration.ofSeconds(1),
            () -> {
              blocked.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            })) {
      task.start();
      blocked.await();

      io.acceld.testing.Eventually.await(
          "the task reports itself stuck", () -> task.stuck(Duration.ofMillis(50)).isPresent());
      assertThat(task.alive()).isTrue();
      release.countDown();
      io.acceld.testing.Eventually.await(
          "the task is no longer stuck", () -> task.stuck(Duration.ofMillis(50)).isEmpty());
    }
  }
}
