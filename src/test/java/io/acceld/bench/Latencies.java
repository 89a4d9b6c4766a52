package io.acceld.bench;

import java.util.Arrays;

/** Durations in nanoseconds, reported as nearest-rank percentiles in milliseconds. */
final class Latencies {
  private long[] nanos = new long[1024];
  private int size;

  void add(long value) {
    if (size == nanos.length) {
      nanos = Arrays.copyOf(nanos, size * 2);
    }
    nanos[size++] = value;
  }

  void report(String what) {
    if (size == 0) {
      System.out.printf("%-48s n=0%n", what);
      return;
    }
    long[] sorted = Arrays.copyOf(nanos, size);
    Arrays.sort(sorted);
    System.out.printf(
        "%-48s n=%d  p50=%.3f ms  p90=%.3f ms  p99=%.3f ms  max=%.3f ms  %s%n",
        what,
        size,
        percentile(sorted, 0.50),
        percentile(sorted, 0.90),
        percentile(sorted, 0.99),
        sorted[size - 1] / 1e6,
        MesosBridgeHarness.load());
  }

  private static double percentile(long[] sorted, double p) {
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, index)] / 1e6;
  }
}
