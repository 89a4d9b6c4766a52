package io.acceld.bench;

import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.HealthProblem;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryStore;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.inventory.Topology;
import io.acceld.metrics.AgentMetrics;
import io.acceld.nvml.NvmlField;
import io.acceld.nvml.NvmlRemappedRows;
import io.acceld.telemetry.ExtendedReadings;
import io.acceld.telemetry.GpuTelemetry;
import io.acceld.telemetry.TelemetrySample;
import io.acceld.ledger.Holder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One full {@code /metrics} scrape of a large node: 64 GPUs of dcgm-exporter telemetry (7 gauges
 * each, half of them with pod labels), health series for every GPU (4 unhealthy), XIDs, kubelet
 * series and the JVM set. Target: well under 10 ms, so a 10 s scrape interval costs nothing.
 *
 * <pre>
 * ./mvnw -B -q -Pbench package -DskipTests
 * java -jar target/benchmarks.jar ScrapeBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ScrapeBenchmark {
  private static final int GPUS = 64;
  private static final String RESOURCE = "nvidia.com/gpu";
  private static final String MODEL = "NVIDIA H100 80GB HBM3";

  private AgentMetrics metrics;

  @Setup
  public void setUp() {
    List<Device> devices = new ArrayList<>();
    List<GpuTelemetry> gpus = new ArrayList<>();
    Map<String, Holder.KubeletPod> owners = new HashMap<>();
    for (int i = 0; i < GPUS; i++) {
      String uuid = String.format(Locale.ROOT, "GPU-%08x-1111-2222-3333-%012x", i, i);
      String pci = String.format(Locale.ROOT, "0000:%02x:00.0", 0x10 + i);
      Device d =
          new Device(
              uuid,
              RESOURCE,
              0x10de,
              0x2330,
              MODEL,
              pci,
              i / 32,
              Optional.of("nvidia"),
              List.of("nvidia" + i, "nvidiactl"),
              Health.HEALTHY,
              Optional.empty(),
              Optional.of(
                  new NvidiaDetails(
                      uuid,
                      i,
                      i,
                      85_899_345_920L,
                      List.of(),
                      Optional.of(false),
                      Optional.of("9.0"))));
      if (i % 16 == 15) {
        d = d.withProblems(List.of(HealthProblem.gpuLost()));
      }
      devices.add(d);
      gpus.add(
          new GpuTelemetry(
              uuid,
              uuid,
              i,
              String.format(Locale.ROOT, "00000000:%02X:00.0", 0x10 + i),
              MODEL,
              OptionalInt.of(40 + i % 30),
              OptionalLong.of(300_000 + i * 17L),
              OptionalInt.of(i % 101),
              OptionalInt.of((i * 7) % 101),
              OptionalLong.of((long) i << 30),
              OptionalLong.of(85_899_345_920L - ((long) i << 30)),
              extended(i)));
      if (i % 2 == 0) {
        owners.put(uuid, new Holder.KubeletPod("ml", "trainer-" + i, "worker"));
      }
    }
    TelemetrySample sample = new TelemetrySample(Instant.now(), gpus);
    metrics =
        AgentMetrics.builder()
            .hostname("bench-node")
            .telemetry(() -> sample)
            .podOwners(id -> Optional.ofNullable(owners.get(id)))
            .build();
    InventoryStore store = new InventoryStore();
    metrics.deviceHealth().follow(store);
    store.publish(new Inventory(devices, NodeInfo.EMPTY, Topology.EMPTY));
    for (int i = 0; i < GPUS; i += 8) {
      metrics.xids().record(RESOURCE, devices.get(i).id(), 13);
    }
    metrics.kubelet().registered(RESOURCE, true);
    metrics.kubelet().streams(RESOURCE, 1);
    metrics.kubelet().allocated(RESOURCE, 8);
  }

  /** Every extended field present, as on an H100: the scrape renders all of them. */
  private static ExtendedReadings extended(int i) {
    return new ExtendedReadings(
        OptionalInt.of(1980),
        OptionalInt.of(2619),
        OptionalLong.of(1_000_000_000L + i),
        OptionalLong.of(i % 3),
        OptionalInt.of(0),
        OptionalInt.of(i % 5),
        Optional.of(new NvmlRemappedRows(i % 2, 0, false, false)),
        OptionalLong.of(i),
        OptionalLong.of(0),
        OptionalLong.of(2L * i),
        OptionalLong.of(0),
        Map.of(
            NvmlField.MEMORY_TEMP, 50.0 + i % 20,
            NvmlField.NVLINK_CRC_FLIT_ERRORS, 0.0,
            NvmlField.NVLINK_CRC_DATA_ERRORS, 0.0,
            NvmlField.NVLINK_REPLAY_ERRORS, (double) (i % 4),
            NvmlField.NVLINK_RECOVERY_ERRORS, 0.0));
  }

  @TearDown
  public void tearDown() {
    metrics.close();
  }

  @Benchmark
  public String scrape() {
    return metrics.registry().scrape();
  }
}
