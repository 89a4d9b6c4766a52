package io.acceld.kubelet;

import io.acceld.transport.UnixSocketServer;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.transport.UnixGrpc;

import io.acceld.config.SharingPolicy;
import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryDiff;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.LedgerStorage;
import io.acceld.ledger.Publisher;
import java.time.Clock;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.Topology;
import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.AllocateResponse;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginOptions;
import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.acceld.proto.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The kubelet's view of the agent's latency: each call goes over a real Unix socket to the real
 * DevicePlugin server, as the kubelet's calls do. {@code emptyCall} (GetDevicePluginOptions) is the
 * cost of the transport alone, for comparison.
 *
 * <p>Run: {@code ./mvnw -B -q -Pbench package -DskipTests && java -jar target/benchmarks.jar
 * KubeletRpcBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class KubeletRpcBenchmark {
  @Param({"8", "16", "64"})
  int devices;

  private Path dir;
  private LedgerStorage storage;
  private DeviceLedger ledger;
  private UnixGrpc grpc;
  private ExecutorService executor;
  private boolean directExecutor;
  private UnixSocketServer server;
  private ManagedChannel channel;
  private DevicePluginGrpc.DevicePluginBlockingStub stub;
  private AllocateRequest allocate;
  private PreferredAllocationRequest preferred;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    List<Device> gpus = new ArrayList<>();
    Topology.Builder topology = Topology.builder();
    for (int i = 0; i < devices; i++) {
      gpus.add(gpu(i));
    }
    for (int i = 0; i < devices; i++) {
      for (int j = i + 1; j < devices; j++) {
        boolean island = i / 8 == j / 8;
        PcieLevel level =
            i / 2 == j / 2 ? PcieLevel.SINGLE : (i / 32 == j / 32 ? PcieLevel.NODE : PcieLevel.SYSTEM);
        topology.put(gpus.get(i).id(), gpus.get(j).id(), level, island ? (i / 2 == j / 2 ? 6 : 2) : 0);
      }
    }
    Inventory inventory = new Inventory(gpus, NodeInfo.EMPTY, topology.build());
    ResourceView view = ResourceView.of(inventory, "nvidia.com/gpu", SharingPolicy.NONE);
    dir = Files.createTempDirectory("acceld-bench-");
    // The production ledger, checkpointing to disk on its own thread as the agent does.
    storage = LedgerStorage.open(dir.resolve("state"), Clock.systemUTC());
    // -Dbench.checkpoint=false: a ledger that keeps nothing, to see what the checkpoint costs.
    ledger =
        "false".equals(System.getProperty("bench.checkpoint"))
            ? DeviceLedger.inMemory(Clock.systemUTC())
            : storage.ledger();
    ledger.onChange(inventory, InventoryDiff.between(Inventory.EMPTY, inventory));
    // As in the agent, the kubelet publisher follows the ledger, ignoring its own side's leases.
    // -Dbench.listener=false leaves it out, to see what the hand-over costs.
    if (!"false".equals(System.getProperty("bench.listener"))) {
      ledger.subscribeIgnoring(Publisher.KUBELET, availability -> {});
    }
    DevicePluginService service =
        new DevicePluginService(
            view,
            DevicePluginOptions.newBuilder().setGetPreferredAllocationAvailable(true).build(),
            new AllocationResponder(Path.of("/dev"), true, Optional.empty()),
            new TopologyAwareChooser(),
            PluginEvents.NONE,
            ledger,
            new PendingAllocations(Clock.systemUTC()));
    grpc = new UnixGrpc("bench-grpc", 2);
    executor = Executors.newFixedThreadPool(4);
    // Production runs these handlers on the transport threads (see KubeletPublisher); measure that.
    // -Dbench.callPool=true measures a separate call pool instead, for comparison.
    directExecutor = !Boolean.getBoolean("bench.callPool");
    server =
        new UnixSocketServer(
            "nvidia.com/gpu",
            dir.resolve("bench.sock"),
            List.of(service),
            List.of(),
            grpc,
            directExecutor ? Runnable::run : executor);
    server.start();
    channel = grpc.channel(server.socket());
    stub = DevicePluginGrpc.newBlockingStub(channel);
    allocate =
        AllocateRequest.newBuilder()
            .addContainerRequests(
                ContainerAllocateRequest.newBuilder().addDevicesIds(gpus.get(3).id()).addDevicesIds(gpus.get(1).id()))
            .build();
    preferred =
        PreferredAllocationRequest.newBuilder()
            .addContainerRequests(
                ContainerPreferredAllocationRequest.newBuilder()
                    .addAllAvailableDeviceIDs(gpus.stream().map(Device::id).toList())
                    .setAllocationSize(Math.min(8, devices / 2)))
            .build();
  }

  private static Device gpu(int i) {
    String uuid = String.format(Locale.ROOT, "GPU-%08x-0000-4000-8000-%012x", i, i);
    return new Device(
        uuid,
        "nvidia.com/gpu",
        0x10de,
        0x2330,
        "NVIDIA H100 80GB HBM3",
        String.format(Locale.ROOT, "0000:%02x:00.0", i + 1),
        i / 32,
        Optional.of("nvidia"),
        List.of("nvidia" + i, "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"),
        Health.HEALTHY,
        Optional.empty(),
        Optional.of(new NvidiaDetails(uuid, i, i, 85_520_809_984L, List.of(), Optional.of(false), Optional.of("9.0"))));
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
    executor.shutdownNow();
    grpc.close();
    storage.close();
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  @Benchmark
  public DevicePluginOptions emptyCall() {
    return stub.getDevicePluginOptions(Empty.getDefaultInstance());
  }

  @Benchmark
  public AllocateResponse allocate() {
    return stub.allocate(allocate);
  }

  @Benchmark
  public PreferredAllocationResponse preferredAllocation() {
    return stub.getPreferredAllocation(preferred);
  }
}
