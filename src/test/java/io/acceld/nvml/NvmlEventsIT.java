package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.testing.Eventually;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import io.acceld.testing.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Health events as a health checker sees them. */
class NvmlEventsIT {
  @TempDir Path dir;
  private NvmlDouble fake;
  private Nvml nvml;
  private NvmlEventSet set;

  @BeforeEach
  void registerHealthEventsOnAllGpus() {
    fake = NvmlDouble.create(dir, NvmlScenarios.h100s(4));
    nvml = fake.open();
    set = nvml.createEventSet();
    for (int i = 0; i < 4; i++) {
      NvmlDevice device = nvml.deviceByIndex(i);
      nvml.registerEvents(device, NvmlEventType.HEALTH & nvml.supportedEventTypes(device), set);
    }
  }

  @AfterEach
  void close() {
    set.close();
    nvml.close();
  }

  @Test
  void xidOnOneGpuArrivesWithThatGpusUuid() {
    assertThat(fake.control().acceld_fake_inject_event(3, NvmlEventType.XID_CRITICAL_ERROR, 79))
        .isEqualTo(1);

    NvmlEvent event = nvml.waitForEvent(set, 5_000).orElseThrow();

    assertThat(event.deviceUuid()).contains(NvmlScenarios.uuid(3));
    assertThat(event.device()).isEqualTo(nvml.deviceByIndex(3));
    assertThat(event.isXid()).isTrue();
    assertThat(event.eventData()).isEqualTo(79);
    assertThat(event.wholeGpu()).isTrue();
    assertThat(event.gpuInstanceId()).isEqualTo(-1);
    assertThat(event.computeInstanceId()).isEqualTo(-1);
  }

  /**
   * A stopping agent closes NVML while its event thread waits (up to a second, uninterruptibly):
   * the close returns at once, NVML is not shut down under the wait, which ends as it would have,
   * and the shutdown follows it. Later waits fail at once without reaching NVML.
   */
  @Test
  void aCloseDuringAWaitReturnsAtOnceAndShutsNvmlDownWhenTheWaitEnds() throws Exception {
    CompletableFuture<Optional<NvmlEvent>> waiter =
        CompletableFuture.supplyAsync(() -> nvml.waitForEvent(set, 60_000));
    Eventually.await("the wait under way", () -> fake.control().acceld_fake_waiting() == 1);

    nvml.close();

    assertThat(nvml.callStats().calls("nvmlShutdown")).as("not shut down under the wait").isZero();
    assertThat(fake.control().acceld_fake_waiting()).isEqualTo(1);
    assertThat(fake.control().acceld_fake_inject_event(2, NvmlEventType.XID_CRITICAL_ERROR, 48))
        .isEqualTo(1);
    NvmlEvent event = Waits.get(waiter, Duration.ofSeconds(5)).orElseThrow();
    assertThat(event.deviceUuid()).contains(NvmlScenarios.uuid(2));
    assertThat(nvml.callStats().calls("nvmlShutdown"))
        .as("shut down as the wait returned")
        .isEqualTo(1);

    long calls = fake.control().acceld_fake_call_count();
    assertThatThrownBy(() -> nvml.waitForEvent(set, 60_000))
        .isInstanceOfSatisfying(
            NvmlException.class,
            e -> assertThat(e.returnCode()).isEqualTo(NvmlReturn.ERROR_UNINITIALIZED));
    set.close(); // nvmlShutdown freed it
    assertThat(fake.control().acceld_fake_call_count()).isEqualTo(calls);
    assertThat(nvml.callStats().calls("nvmlShutdown")).isEqualTo(1);
  }

  @Test
  void eventRaisedWhileAnotherThreadWaitsWakesIt() throws Exception {
    CompletableFuture<Optional<NvmlEvent>> waiter =
        CompletableFuture.supplyAsync(() -> nvml.waitForEvent(set, 30_000));

    fake.control().acceld_fake_inject_event(1, NvmlEventType.DOUBLE_BIT_ECC_ERROR, 0);

    NvmlEvent event = Waits.get(waiter, Duration.ofSeconds(5)).orElseThrow();
    assertThat(event.eventType()).isEqualTo(NvmlEventType.DOUBLE_BIT_ECC_ERROR);
    assertThat(event.deviceUuid()).contains(NvmlScenarios.uuid(1));
  }

  @Test
  void timeoutReturnsEmptyAfterTheTimeout() {
    long start = System.nanoTime();

    assertThat(nvml.waitForEvent(set, 200)).isEmpty();

    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    assertThat(elapsed).isBetween(Duration.ofMillis(190), Duration.ofSeconds(3));
    assertThat(nvml.callStats().snapshot().get("nvmlEventSetWait_v2"))
        .isEqualTo(new NvmlCallStats.Counts(1, 0)); // a timeout is not an error
  }

  @Test
  void failingWaitsThrowTheirCodeThenWaitsRecover() {
    assertThat(fake.control().acceld_fake_fail_waits(NvmlReturn.ERROR_UNKNOWN, 2)).isZero();

    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> nvml.waitForEvent(set, 1_000))
          .isInstanceOfSatisfying(
              NvmlException.class,
              e -> {
                assertThat(e.returnCode()).isEqualTo(999);
                assertThat(e.returnName()).isEqualTo("NVML_ERROR_UNKNOWN");
                assertThat(e.function()).isEqualTo("nvmlEventSetWait_v2");
              });
    }
    assertThat(nvml.waitForEvent(set, 0)).isEmpty();
    assertThat(nvml.callStats().snapshot().get("nvmlEventSetWait_v2"))
        .isEqualTo(new NvmlCallStats.Counts(3, 2));
  }

  @Test
  void onlyRegisteredTypesAndGpusAreDelivered() {
    try (NvmlEventSet xidOnGpu0 = nvml.createEventSet()) {
      nvml.registerEvents(nvml.deviceByIndex(0), NvmlEventType.XID_CRITICAL_ERROR, xidOnGpu0);

      // PSTATE is registered nowhere: NVML drops it
      assertThat(fake.control().acceld_fake_inject_event(0, NvmlEventType.PSTATE, 0)).isZero();
      // DBE on GPU 0 and XID on GPU 2 reach only the set that registered them
      assertThat(fake.control().acceld_fake_inject_event(0, NvmlEventType.DOUBLE_BIT_ECC_ERROR, 0))
          .isEqualTo(1);
      assertThat(fake.control().acceld_fake_inject_event(2, NvmlEventType.XID_CRITICAL_ERROR, 31))
          .isEqualTo(1);

      assertThat(nvml.waitForEvent(xidOnGpu0, 100)).isEmpty();
      assertThat(nvml.waitForEvent(set, 1_000))
          .hasValueSatisfying(e -> assertThat(e.eventType()).isEqualTo(2L));
      assertThat(nvml.waitForEvent(set, 1_000))
          .hasValueSatisfying(e -> assertThat(e.eventData()).isEqualTo(31));

      // and an XID on GPU 0 reaches both sets
      assertThat(fake.control().acceld_fake_inject_event(0, NvmlEventType.XID_CRITICAL_ERROR, 48))
          .isEqualTo(2);
      assertThat(nvml.waitForEvent(xidOnGpu0, 1_000)).isPresent();
      assertThat(nvml.waitForEvent(set, 1_000)).isPresent();
    }
  }

  @Test
  void registeringATypeTheGpuCannotRaiseIsNotSupported() {
    NvmlDevice gpu = nvml.deviceByIndex(0);
    // A MIG-capable GPU (MIG off) can also say its MIG layout changed.
    assertThat(nvml.supportedEventTypes(gpu))
        .isEqualTo(NvmlEventType.HEALTH | NvmlEventType.MIG_CONFIG_CHANGE);

    assertThatThrownBy(() -> nvml.registerEvents(gpu, NvmlEventType.CLOCK, set))
        .isInstanceOfSatisfying(
            NvmlException.class,
            e -> assertThat(e.returnCode()).isEqualTo(NvmlReturn.ERROR_NOT_SUPPORTED));
  }
}
