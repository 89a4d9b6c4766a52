package io.acceld.bench;

import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.Topology;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
 * One {@code GetPreferredAllocation} decision at 64 devices as the agent makes it: through {@link
 * TopologyAwareChooser} over an {@link Inventory} snapshot (so whatever the chooser caches per
 * inventory is cached here too), minus gRPC and the ID checks.
 *
 * <p>The node ({@link #topology}): PCIe switches of 2, GPUs 0-31 on NUMA node 0 and 32-63 on node
 * 1, and NVLinks as one of
 *
 * <ul>
 *   <li>{@code islands}: eight NVLink islands of 8 GPUs, each a hybrid cube mesh (two quads, 2
 *       links to the switch twin, 1 to the rest of the quad, 2 to the same position in the other
 *       quad);
 *   <li>{@code pcie}: no NVLink at all (PCIe cards);
 *   <li>{@code nvswitch}: one NVSwitch fabric of all 64, 18 links between every pair.
 * </ul>
 *
 * The last two have no islands to search by, which is what made them the slow case. IDs are UUID-like, so their order says
 * nothing about the topology. Each call takes the next of {@link #REQUESTS} fixed pseudo-random
 * fragmented availabilities (between a quarter and a half of the GPUs busy, in shuffled order), so
 * the percentiles cover many shapes and not one lucky one. Both the code before and after the
 * island search compile this class, so {@code src/jmh/compare.sh} runs it against both.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FragmentedAllocationBenchmark {
  static final int DEVICES = 64;
  static final int REQUESTS = 256;

  @Param({"2", "8", "16"})
  public int size;

  @Param({"islands", "pcie", "nvswitch"})
  public String topology = "islands";

  private final TopologyAwareChooser chooser = new TopologyAwareChooser();
  private Inventory inventory;
  private List<List<String>> available;
  private int next;

  @Setup
  public void setUp() {
    List<Device> gpus = new ArrayList<>();
    for (int i = 0; i < DEVICES; i++) {
      gpus.add(gpu(i));
    }
    Topology.Builder links = Topology.builder();
    for (int i = 0; i < DEVICES; i++) {
      for (int j = i + 1; j < DEVICES; j++) {
        links.put(gpus.get(i).id(), gpus.get(j).id(), level(i, j), nvlinks(topology, i, j));
      }
    }
    inventory = new Inventory(gpus, NodeInfo.EMPTY, links.build());
    Random random = new Random(64);
    available = new ArrayList<>();
    for (int r = 0; r < REQUESTS; r++) {
      List<String> free = new ArrayList<>();
      for (Device d : gpus) {
        free.add(d.id());
      }
      Collections.shuffle(free, random);
      int busy = DEVICES / 4 + random.nextInt(DEVICES / 4);
      available.add(List.copyOf(free.subList(busy, DEVICES)));
    }
  }

  @Benchmark
  public List<String> fragmented() {
    List<String> ids = available.get(next);
    next = (next + 1) % REQUESTS;
    return chooser.choose(inventory, ids, List.of(), size);
  }

  private static PcieLevel level(int i, int j) {
    if (i / 2 == j / 2) {
      return PcieLevel.SINGLE;
    }
    return (i < DEVICES / 2) == (j < DEVICES / 2) ? PcieLevel.NODE : PcieLevel.SYSTEM;
  }

  private static int nvlinks(String topology, int i, int j) {
    switch (topology) {
      case "islands":
        return cubeMesh(i, j);
      case "pcie":
        return 0;
      case "nvswitch":
        return 18;
      default:
        throw new IllegalArgumentException("topology: islands, pcie or nvswitch, not " + topology);
    }
  }

  private static int cubeMesh(int i, int j) {
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

  private static Device gpu(int i) {
    // A hash-like UUID: ID order is unrelated to the island a GPU is in, as on a real node.
    String uuid =
        String.format(
            Locale.ROOT, "GPU-%08x-0000-4000-8000-%012x", (i * 0x9E3779B1) & 0xffffffffL, i);
    return new Device(
        uuid,
        "nvidia.com/gpu",
        0x10de,
        0x2330,
        "NVIDIA H100 80GB HBM3",
        String.format(Locale.ROOT, "0000:%02x:00.0", i + 1),
        i < DEVICES / 2 ? 0 : 1,
        Optional.of("nvidia"),
        List.of("nvidia" + i),
        Health.HEALTHY,
        Optional.empty(),
        Optional.empty());
  }
}
