package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.testing.Eventually;
import io.acceld.testing.LogCapture;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PeriodicTaskTest {
  private static final Duration OFTEN = Duration.ofMillis(1);
  private static final Duration RARELY = Duration.ofHours(1);

  private final AtomicInteger runs = new AtomicInteger();
  private PeriodicTask task;

  @AfterEach
  void close() {
    if (task != null) {
      task.close();
    }
  }

  @Test
  void runsAgainAndAgainOnOneThreadNamedForItsJob() {
    Set<String> threads = ConcurrentHashMap.newKeySet();
    task =
        PeriodicTask.every(
            "acceld-test-loop",
            "Test loop",
            OFTEN,
            () -> {
              threads.add(Thread.currentThread().getName());
              runs.incrementAndGet();
            });

    task.start();

    Eventually.await("three turns", () -> runs.get() >= 3);
    assertThat(threads).containsExactly("acceld-test-loop-1");
    assertThat(task.alive()).isTrue();
  }

  @Test
  void failingTurnsKeepTheLoopGoingAndAreLoggedOnceUntilItRecovers() {
    try (LogCapture logs = LogCapture.of(PeriodicTask.class)) {
      task =
          PeriodicTask.every(
              "acceld-test-loop",
              "Test loop",
              OFTEN,
              () -> {
                if (runs.incrementAndGet() <= 5) {
                  throw new IllegalStateException("broken for now");
                }
              });

      task.start();

      Eventually.await("turns after the failures", () -> runs.get() >= 8);
      assertThat(task.alive()).isTrue();
      assertThat(logs.warnings()).containsExactly("Test loop failed; trying again in 1 ms");
      assertThat(logs.infos()).contains("Test loop works again");
    }
  }

  @Test
  void aPacedLoopWaitsTheDelayItsTurnAsksForAndRunSoonAddsATurn() {
    task =
        PeriodicTask.paced(
            "acceld-test-loop",
            "Test loop",
            OFTEN,
            () -> {
              runs.incrementAndGet();
              return RARELY;
            });
    task.start();
    Eventually.await("the first turn", () -> runs.get() == 1);

    task.runSoon();

    Eventually.await("the extra turn", () -> runs.get() == 2);
  }

  @Test
  void aThrowingPacedTurnIsRetriedAfterTheFailureDelay() {
    task =
        PeriodicTask.paced(
            "acceld-test-loop",
            "Test loop",
            OFTEN,
            () -> {
              if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException("first turn fails");
              }
              return RARELY;
            });

    task.start();

    Eventually.await("the retry", () -> runs.get() == 2);
  }

  @Test
  void closeStopsTheLoopForGood() {
    task = PeriodicTask.every("acceld-test-loop", "Test loop", OFTEN, runs::incrementAndGet);
    task.start();
    Eventually.await("a turn", () -> runs.get() >= 1);

    assertThat(task.close(Duration.ofSeconds(5))).isTrue();
    int after = runs.get();
    task.runSoon();

    assertThat(task.alive()).isFalse();
    assertThat(runs.get()).isEqualTo(after);
  }

  @Test
  void closeWaitsOnlySoLongForATurnThatIgnoresInterrupts() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    task =
        PeriodicTask.every(
            "acceld-test-loop",
            "Test loop",
            RARELY,
            () -> {
              entered.countDown();
              // like a native call: an interrupt does not end it
              boolean done = false;
              while (!done) {
                try {
                  release.await();
                  done = true;
                } catch (InterruptedException e) {
                  // keep waiting
                }
              }
            });
    task.start();
    entered.await();

    try (LogCapture logs = LogCapture.of(PeriodicTask.class)) {
      assertThat(task.close(Duration.ofMillis(50))).isFalse();
      assertThat(logs.warnings()).containsExactly("Test loop did not stop within 50 ms");
    } finally {
      release.countDown();
    }
  }

  @Test
  void anUnexpectedErrorEndsTheLoopAndAliveSaysSo() {
    task =
        PeriodicTask.every(
            "acceld-test-loop",
            "Test loop",
            OFTEN,
            () -> {
              runs.incrementAndGet();
              throw new AssertionError("not a failure the loop can survive");
            });

    task.start();

    Eventually.await("the loop to die", () -> !task.alive());
    assertThat(runs.get()).isEqualTo(1);
  }

  @Test
  void aLoopStartsOnce() {
    task = PeriodicTask.every("acceld-test-loop", "Test loop", RARELY, runs::incrementAndGet);
    task.start();

    assertThatThrownBy(task::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Test loop");
  }
}
