package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults injected from outside the process by appending to the double's control file, as
 * simulate-mode tests against a running agent will do.
 */
class NvmlControlFileIT {
  private static final Duration DEADLINE = Duration.ofSeconds(5);

  @TempDir Path dir;
  private NvmlDouble fake;
  private Nvml nvml;
  private NvmlEventSet set;

  @BeforeEach
  void open() {
    fake = NvmlDouble.create(dir, NvmlScenarios.h100s(3));
    nvml = fake.open();
    set = nvml.createEventSet();
    for (int i = 0; i < 3; i++) {
      nvml.registerEvents(nvml.deviceByIndex(i), NvmlEventType.HEALTH, set);
    }
  }

  @AfterEach
  void close() {
    set.close();
    nvml.close();
  }

  @Test
  void appendedXidLineIsDeliveredAsAnEvent() {
    fake.appendControl("xid 1 48");

    NvmlEvent event = awaitEvent();

    assertThat(event.isXid()).isTrue();
    assertThat(event.eventData()).isEqualTo(48);
    assertThat(event.deviceUuid()).contains(NvmlScenarios.uuid(1));
  }

  @Test
  void badLinesAreSkippedAndLaterLinesStillRun() {
    fake.appendControl("frobnicate 1 2");
    fake.appendControl("xid 9 13"); // no GPU 9
    fake.appendControl("xid 0 13");

    assertThat(awaitEvent().deviceUuid()).contains(NvmlScenarios.uuid(0));
  }

  @Test
  void dbeLineRaisesAnEventAndCountsAnUncorrectedError() {
    fake.appendControl("dbe 2");

    NvmlEvent event = awaitEvent();

    assertThat(event.eventType()).isEqualTo(NvmlEventType.DOUBLE_BIT_ECC_ERROR);
    assertThat(
            nvml.totalEccErrors(
                nvml.deviceByIndex(2), NvmlEccErrorType.UNCORRECTED, NvmlEccCounter.VOLATILE))
        .hasValue(1);
  }

  @Test
  void lostAndFailWaitsLinesSurfaceAsWaitErrors() {
    fake.appendControl("fail-waits 999 1");
    assertThat(awaitWaitError().returnCode()).isEqualTo(999);

    fake.appendControl("lost 2 1");
    assertThat(awaitWaitError().returnCode()).isEqualTo(NvmlReturn.ERROR_GPU_IS_LOST);
  }

  /** Waits in short slices (NVML may time out early) until an event arrives or the deadline. */
  private NvmlEvent awaitEvent() {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<NvmlEvent> event = nvml.waitForEvent(set, 100);
      if (event.isPresent()) {
        return event.get();
      }
    }
    throw new AssertionError("no event within " + DEADLINE);
  }

  private NvmlException awaitWaitError() {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        nvml.waitForEvent(set, 100);
      } catch (NvmlException e) {
        return e;
      }
    }
    throw new AssertionError("no wait error within " + DEADLINE);
  }
}
