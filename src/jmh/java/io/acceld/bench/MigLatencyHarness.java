package io.acceld.bench;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.acceld.agent.Agent;
import io.acceld.agent.NodeDiscovery;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.config.AgentConfig;
import io.acceld.config.MigLayout;
import io.acceld.health.HealthEvents;
import io.acceld.inventory.Device;
import io.acceld.inventory.InventoryStore;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.kubelet.KubeletPublisher;
import io.acceld.kubelet.PluginEvents;
import io.acceld.ledger.DeviceLedger;
import io.acceld.proto.deviceplugin.v1beta1.AllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.transport.UnixGrpc;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * MIG at scale, end to end: a 16-GPU fixture node whose first eight GPUs are each 7 × 1g.10gb
 * (56 MIG devices, {@code mixed}) beside eight whole GPUs, the real agent and NVML double, and
 * clients on the real plugin sockets. Reports:
 *
 * <ul>
 *   <li>instance XID to ListAndWatch: an XID naming one GPU instance until the MIG resource's
 *       stream shows that device Unhealthy (it heals after a 20 ms quarantine);
 *   <li>Allocate of one MIG device, and of one whole GPU, over gRPC;
 *   <li>re-partition to new list: a control-file re-layout of one GPU until its new profile's
 *       stream lists the devices (NVML's MIG config-change event, then a rescan).
 * </ul>
 *
 * <p>Run: {@code ./mvnw -B -q -Pbench package -DskipTests && java -cp target/benchmarks.jar
 * io.acceld.bench.MigLatencyHarness [rounds]}
 */
public final class MigLatencyHarness {
  /** The double's fault-injection controls (native-probes/fake_nvml_mig.c). */
  public interface Control extends Library {
    int acceld_fake_inject_instance_event(int gpu, long type, long data, int gi, int ci);
  }

  private static final long XID_EVENT = 0x0008L;
  private static final String MIG = "nvidia.com/mig-1g.10gb";
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    Path work = Files.createTempDirectory("acceld-mig-latency-");
    StringBuilder layout = new StringBuilder();
    for (int g = 0; g < 8; g++) {
      layout.append(g == 0 ? "" : ";").append(g).append("=1g.10gb*7");
    }
    FixtureNode node =
        Fixtures.node(work.resolve("node"), 16, MigLayout.parse(layout.toString()));
    LatencyNode prepared =
        LatencyNode.prepare(
            work, node, Map.of("mig-strategy", "mixed", "kubelet-pending-lease-ttl", "1h"));
    AgentConfig config = prepared.config();
    Path control = prepared.control();
    Path plugins = prepared.plugins();
    Control faults = Native.load(prepared.library().toString(), Control.class);

    InventoryStore store = new InventoryStore();
    DeviceLedger ledger = DeviceLedger.inMemory(Clock.systemUTC());
    store.subscribe(ledger);
    try (DeviceLedger closesLedger = ledger;
        Agent agent =
            new Agent(
                config, NodeDiscovery.open(config, true), store, HealthEvents.NONE, Clock.systemUTC());
        UnixGrpc grpc = new UnixGrpc("mig-latency-client", 1);
        UnixGrpc served = new UnixGrpc("mig-latency-served", 2);
        KubeletPublisher kubelet =
            new KubeletPublisher(
                config, new TopologyAwareChooser(), PluginEvents.NONE, List.of(), ledger, served)) {
      agent.start();
      kubelet.start();
      ManagedChannel migChannel = grpc.channel(plugins.resolve("acceld-nvidia.com_mig-1g.10gb.sock"));
      ManagedChannel gpuChannel = grpc.channel(plugins.resolve("acceld-nvidia.com_gpu.sock"));
      ListAndWatchLog updates = ListAndWatchLog.open(migChannel, PATIENCE);
      updates.await(r -> r.getDevicesCount() == 56 && ListAndWatchLog.allHealthy(r));
      List<Device> migs = store.current().devicesOf(MIG);
      List<Device> whole = store.current().devicesOf("nvidia.com/gpu");

      List<Long> xid = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        Device d = migs.get(round % migs.size());
        NvidiaDetails n = d.nvidia().orElseThrow();
        int gi = n.mig().orElseThrow().gpuInstanceId();
        updates.clear();
        long start = System.nanoTime();
        faults.acceld_fake_inject_instance_event(n.index(), XID_EVENT, 95, gi, 0);
        xid.add(updates.await(r -> ListAndWatchLog.unhealthy(r, d.id())) - start);
        updates.await(ListAndWatchLog::allHealthy);
      }

      List<Long> allocateMig = new ArrayList<>();
      List<Long> allocateWhole = new ArrayList<>();
      var migStub = DevicePluginGrpc.newBlockingStub(migChannel);
      var gpuStub = DevicePluginGrpc.newBlockingStub(gpuChannel);
      // A device allocated again goes to the new Allocate (the kubelet reassigning its own pending
      // lease), so rounds cycle through the devices; the first 20 warm the path up unmeasured.
      for (int round = -20; round < rounds; round++) {
        int k = Math.floorMod(round, migs.size());
        long mig = allocate(migStub, migs.get(k).id());
        long gpu = allocate(gpuStub, whole.get(Math.floorMod(round, whole.size())).id());
        if (round >= 0) {
          allocateMig.add(mig);
          allocateWhole.add(gpu);
        }
      }

      // The 3g resource's server appears with the first re-partition and then stays, with 0
      // devices while no GPU has that profile, so one stream sees every round.
      List<Long> repartition = new ArrayList<>();
      int repartitions = Math.max(4, rounds / 20);
      Path threeSocket = plugins.resolve("acceld-nvidia.com_mig-3g.40gb.sock");
      ListAndWatchLog three = null;
      ManagedChannel threeChannel = null;
      for (int round = 0; round < repartitions; round++) {
        int gpu = 8 + round % 8; // a whole GPU: MIG mode on with a 3g layout, then off again
        long start = System.nanoTime();
        append(control, "mig-mode " + gpu + " 1 1\nmig " + gpu + " 3g.40gb 3g.40gb\n");
        if (three == null) {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (!Files.exists(threeSocket)) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException(threeSocket + " never appeared");
            }
            Thread.onSpinWait();
          }
          threeChannel = grpc.channel(threeSocket);
          three = ListAndWatchLog.open(threeChannel, PATIENCE);
        }
        repartition.add(three.await(r -> r.getDevicesCount() == 2) - start);
        append(control, "mig-mode " + gpu + " 0 0\n");
        three.await(r -> r.getDevicesCount() == 0);
      }
      ListAndWatchLog.report("instance XID -> ListAndWatch (56 MIG)", xid);
      ListAndWatchLog.report("Allocate 1 MIG device (56 + 8 whole)", allocateMig);
      ListAndWatchLog.report("Allocate 1 whole GPU (56 MIG beside)", allocateWhole);
      ListAndWatchLog.report("re-partition -> new list", repartition);
      migChannel.shutdownNow();
      gpuChannel.shutdownNow();
      if (threeChannel != null) {
        threeChannel.shutdownNow();
      }
    }
  }

  private static long allocate(DevicePluginGrpc.DevicePluginBlockingStub stub, String id) {
    long start = System.nanoTime();
    stub.allocate(
        AllocateRequest.newBuilder()
            .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(id))
            .build());
    return System.nanoTime() - start;
  }

  private static void append(Path control, String lines) throws Exception {
    Files.writeString(control, lines, StandardOpenOption.APPEND);
  }
}
