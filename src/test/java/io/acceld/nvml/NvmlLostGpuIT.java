package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.simulate.NvmlFaults;
import io.acceld.simulate.NvmlScenario.Gpu;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import io.acceld.testing.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A GPU that fell off the bus is reported as lost without hiding the healthy ones. */
class NvmlLostGpuIT {
  @TempDir Path dir;
  private Nvml nvml;

  @AfterEach
  void close() {
    if (nvml != null) {
      nvml.close();
    }
  }

  @Test
  void probeReportsEveryGpuAndFlagsOnlyTheLostOne() {
    nvml = NvmlDouble.create(dir, NvmlScenarios.h100s(4).gpu(lostGpu())).open();

    NvmlNodeInfo info = new NvmlProbe(nvml).probe();

    assertThat(info.gpus()).extracting(NvmlGpu::index).containsExactly(0, 1, 2, 3, 4);
    assertThat(info.gpus()).filteredOn(NvmlGpu::lost).extracting(NvmlGpu::index).containsExactly(4);
    NvmlGpu lost = info.gpus().get(4);
    assertThat(lost.pciAddress()).isEqualTo("0000:e1:00.0");
    assertThat(lost.uuid()).isNull();
    assertThat(lost.minor()).isEqualTo(-1);
    assertThat(lost.memoryBytes()).isEqualTo(-1);
    assertThat(info.gpus().subList(0, 4))
        .allSatisfy(gpu -> assertThat(gpu.uuid()).isEqualTo(NvmlScenarios.uuid(gpu.index())));
    assertThat(info.links())
        .filteredOn(link -> link.pciAddressB().equals("0000:e1:00.0"))
        .hasSize(4)
        .allSatisfy(link -> assertThat(link.topologyLevel()).isEqualTo(NvmlTopologyLevel.UNKNOWN));
  }

  @Test
  void perDeviceCallsOnALostGpuThrowGpuIsLost() {
    nvml = NvmlDouble.create(dir, NvmlScenarios.h100s(1).gpu(lostGpu())).open();
    NvmlDevice lost = nvml.deviceByIndex(1);

    assertThatThrownBy(() -> nvml.uuid(lost))
        .isInstanceOfSatisfying(
            NvmlException.class,
            e -> {
              assertThat(e.returnCode()).isEqualTo(15);
              assertThat(e.returnName()).isEqualTo("NVML_ERROR_GPU_IS_LOST");
              assertThat(e.function()).isEqualTo("nvmlDeviceGetUUID");
              assertThat(e.isGpuLost()).isTrue();
            });
    // a lost GPU is a fault, not a missing feature: telemetry throws instead of returning empty
    assertThatThrownBy(() -> nvml.temperatureCelsius(lost))
        .isInstanceOfSatisfying(NvmlException.class, e -> assertThat(e.returnCode()).isEqualTo(15));
    assertThat(nvml.uuid(nvml.deviceByIndex(0))).isEqualTo(NvmlScenarios.uuid(0));
  }

  @Test
  void gpuLostAtRuntimeWakesABlockedEventWaitWithGpuIsLost() throws Exception {
    NvmlDouble fake = NvmlDouble.create(dir, NvmlScenarios.h100s(2));
    nvml = fake.open();
    try (NvmlEventSet set = nvml.createEventSet()) {
      nvml.registerEvents(nvml.deviceByIndex(1), NvmlEventType.XID_CRITICAL_ERROR, set);
      CompletableFuture<?> waiter =
          CompletableFuture.runAsync(() -> nvml.waitForEvent(set, 30_000));

      assertThat(fake.control().acceld_fake_set_lost(1, 1)).isZero();

      assertThatThrownBy(() -> Waits.get(waiter, Duration.ofSeconds(5)))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              NvmlException.class, e -> assertThat(e.returnCode()).isEqualTo(15));
      // and the next probe sees it
      assertThat(new NvmlProbe(nvml).probe().gpus())
          .extracting(NvmlGpu::lost)
          .containsExactly(false, true);
    }
  }

  @Test
  void waitOnASetWithALostGpuFailsImmediately() {
    NvmlDouble fake = NvmlDouble.create(dir, NvmlScenarios.h100s(1));
    nvml = fake.open();
    try (NvmlEventSet set = nvml.createEventSet()) {
      nvml.registerEvents(nvml.deviceByIndex(0), NvmlEventType.XID_CRITICAL_ERROR, set);
      assertThat(fake.control().acceld_fake_set_lost(0, 1)).isZero();
      long start = System.nanoTime();
      assertThatThrownBy(() -> nvml.waitForEvent(set, 30_000))
          .isInstanceOfSatisfying(NvmlException.class, e -> assertThat(e.isGpuLost()).isTrue());
      // not the 30 s the wait was given
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isLessThan(Waits.scaled(Duration.ofSeconds(5)));
    }
  }

  private static Gpu lostGpu() {
    return NvmlFaults.lost(Gpu.of("GPU-dead", "0000:E1:00.0"), true);
  }
}
