package io.acceld.bench;

import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.Topology;
import io.acceld.allocation.AllocationTopology;
import io.acceld.allocation.PreferredAllocator;
import io.acceld.allocation.PreferredAllocator.Request;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Latency of one {@code GetPreferredAllocation} decision, as the kubelet would see it minus gRPC.
 * SampleTime so JMH reports percentiles; the target is p99 under 5 ms for 64 devices, size 8.
 *
 * <p>The node: NVLink islands of 8 GPUs wired as a hybrid cube mesh (DGX-1 style: two fully linked
 * quads, 2 links to the neighbour, 1 to the rest of the quad, 2 to the twin in the other quad, so 6
 * links per GPU), PCIe switches of 2 GPUs, the first half on NUMA node 0 and the rest on node 1.
 * Topology goes through {@link AllocationTopology#of}, so the inventory's string-keyed lookups are
 * part of the measured cost.
 *
 * <ul>
 *   <li>{@code idle}: every device free, nothing must be included.
 *   <li>{@code fragmented}: a quarter of the devices busy (fixed pseudo-random choice), the request
 *       shuffled, one must-include device, as after a day of pods coming and going.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PreferredAllocationBenchmark {

  @Param({"8", "16", "64"})
  public int devices;

  @Param({"4", "8"})
  public int size;

  private PreferredAllocator allocator;
  private Request idle;
  private Request fragmented;

  @Setup
  public void setUp() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      ids.add(String.format("GPU-%04d", i));
    }
    allocator = new PreferredAllocator(node(ids));
    idle = Request.of(ids, List.of(), size);

    Random random = new Random(17);
    List<String> free = new ArrayList<>(ids);
    Collections.shuffle(free, random);
    free = new ArrayList<>(free.subList(0, devices - devices / 4));
    String must = free.get(0);
    Collections.shuffle(free, random);
    fragmented = Request.of(free, List.of(must), size);
  }

  static AllocationTopology node(List<String> ids) {
    int n = ids.size();
    Topology.Builder links = Topology.builder();
    Map<String, Integer> numa = new HashMap<>();
    for (int i = 0; i < n; i++) {
      numa.put(ids.get(i), i < n / 2 ? 0 : 1);
      for (int j = i + 1; j < n; j++) {
        links.put(ids.get(i), ids.get(j), level(i, j, n), nvlinks(i, j));
      }
    }
    return AllocationTopology.of(links.build(), numa);
  }

  private static PcieLevel level(int i, int j, int n) {
    if (i / 2 == j / 2) {
      return PcieLevel.SINGLE;
    }
    return (i < n / 2) == (j < n / 2) ? PcieLevel.NODE : PcieLevel.SYSTEM;
  }

  /** Hybrid cube mesh inside each island of 8; no NVLink between islands. */
  private static int nvlinks(int i, int j) {
    if (i / 8 != j / 8) {
      return 0;
    }
    int a = i % 8;
    int b = j % 8;
    if (a / 4 == b / 4) {
      return (a ^ 1) == b ? 2 : 1;
    }
    return a % 4 == b % 4 ? 2 : 0;
  }

  @Benchmark
  public List<String> idle() {
    return allocator.choose(idle);
  }

  @Benchmark
  public List<String> fragmented() {
    return allocator.choose(fragmented);
  }
}
