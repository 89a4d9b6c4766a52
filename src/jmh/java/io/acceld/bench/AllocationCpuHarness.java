package io.acceld.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@link FragmentedAllocationBenchmark}'s calls timed by the calling thread's CPU time instead of
 * the wall clock: on a shared machine the wall-clock tail of a sub-millisecond call is mostly the
 * scheduler's time slices given to other work, which says nothing about the call. Warms up, then
 * times every call of {@code rounds} passes over the benchmark's 256 requests, per topology and size.
 *
 * <pre>java -cp target/benchmarks.jar io.acceld.bench.AllocationCpuHarness [rounds [topology...]]</pre>
 *
 * Topologies are {@link FragmentedAllocationBenchmark#topology}'s; all three by default.
 */
public final class AllocationCpuHarness {
  private AllocationCpuHarness() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    String[] topologies =
        args.length > 1
            ? Arrays.copyOfRange(args, 1, args.length)
            : new String[] {"islands", "pcie", "nvswitch"};
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (String topology : topologies) {
      for (int size : new int[] {2, 8, 16}) {
        time(threads, topology, size, rounds);
      }
    }
  }

  private static void time(ThreadMXBean threads, String topology, int size, int rounds) {
    FragmentedAllocationBenchmark bench = new FragmentedAllocationBenchmark();
    bench.topology = topology;
    bench.size = size;
    bench.setUp();
    int calls = rounds * FragmentedAllocationBenchmark.REQUESTS;
    for (int i = 0; i < calls; i++) {
      bench.fragmented();
    }
    long[] cpu = new long[calls];
    for (int i = 0; i < calls; i++) {
      long start = threads.getCurrentThreadCpuTime();
      bench.fragmented();
      cpu[i] = threads.getCurrentThreadCpuTime() - start;
    }
    Arrays.sort(cpu);
    System.out.printf(
        Locale.ROOT,
        "%-8s size %2d: n=%d CPU p50 %.0f us, p90 %.0f us, p99 %.0f us, max %.0f us%n",
        topology,
        size,
        calls,
        cpu[calls / 2] / 1e3,
        cpu[calls * 9 / 10] / 1e3,
        cpu[calls * 99 / 100] / 1e3,
        cpu[calls - 1] / 1e3);
  }
}
