package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class NvmlCallStatsTest {
  @Test
  void countsCallsAndErrorsPerFunction() {
    NvmlCallStats stats = new NvmlCallStats();
    stats.record("nvmlDeviceGetUUID", false);
    stats.record("nvmlDeviceGetUUID", true);
    stats.record("nvmlDeviceGetCount_v2", false);

    assertThat(stats.snapshot())
        .containsExactly(
            Map.entry("nvmlDeviceGetCount_v2", new NvmlCallStats.Counts(1, 0)),
            Map.entry("nvmlDeviceGetUUID", new NvmlCallStats.Counts(2, 1)));
    assertThat(stats.totalCalls()).isEqualTo(3);
    assertThat(stats.totalErrors()).isEqualTo(1);
    assertThat(stats.calls("nvmlDeviceGetUUID")).isEqualTo(2);
    assertThat(stats.calls("nvmlShutdown")).as("never called").isZero();
  }

  @Test
  void concurrentRecordingLosesNothing() throws Exception {
    NvmlCallStats stats = new NvmlCallStats();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    for (int t = 0; t < 8; t++) {
      pool.execute(
          () -> {
            for (int i = 0; i < 10_000; i++) {
              stats.record("f" + (i % 3), i % 2 == 0);
            }
          });
    }
    pool.shutdown();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    assertThat(stats.totalCalls()).isEqualTo(80_000);
    assertThat(stats.totalErrors()).isEqualTo(40_000);
  }

  @Test
  void snapshotIsReadOnly() {
    NvmlCallStats stats = new NvmlCallStats();
    stats.record("f", false);
    assertThatThrownBy(() -> stats.snapshot().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
