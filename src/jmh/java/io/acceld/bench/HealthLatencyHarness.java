package io.acceld.bench;

import io.acceld.simulate.HotPlug;
import com.sun.jna.Library;
import com.sun.jna.Native;
import io.acceld.agent.Agent;
import io.acceld.agent.NodeDiscovery;
import io.acceld.config.AgentConfig;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.health.HealthEvents;
import io.acceld.inventory.InventoryStore;
import io.acceld.kubelet.KubeletPublisher;
import io.acceld.kubelet.PluginEvents;
import io.acceld.ledger.DeviceLedger;
import java.time.Clock;
import java.time.Duration;
import io.acceld.transport.UnixGrpc;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Measures the time from a fault to its delivery in ListAndWatch, end to end: the real agent on the
 * eight-GPU fixture with the NVML double, and a ListAndWatch client on the real socket, as the kubelet
 * would be. Two paths: an XID injected into NVML, and a device node removed from /dev. Each round
 * waits for the device to heal (a short quarantine, or the node restored) before the next.
 *
 * <p>Run: {@code ./mvnw -B -q -Pbench package -DskipTests && java -cp target/benchmarks.jar
 * io.acceld.bench.HealthLatencyHarness [rounds]}
 */
public final class HealthLatencyHarness {
  /** The double's fault-injection controls (native-probes/fake_nvml_control.c). */
  public interface Control extends Library {
    int acceld_fake_inject_event(int gpu, long eventType, long eventData);
  }

  private static final long XID_EVENT = 0x0008L;

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    Path work = Files.createTempDirectory("acceld-latency-");
    FixtureNode node = Fixtures.eightGpuNode(work.resolve("node"));
    LatencyNode prepared = LatencyNode.prepare(work, node, Map.of());
    AgentConfig config = prepared.config();
    Path plugins = prepared.plugins();
    Control control = Native.load(prepared.library().toString(), Control.class);

    // The pipeline and the kubelet side, composed as AgentDaemon composes them (without metrics).
    InventoryStore store = new InventoryStore();
    DeviceLedger ledger = DeviceLedger.inMemory(Clock.systemUTC());
    store.subscribe(ledger);
    try (DeviceLedger closesLedger = ledger;
        Agent agent =
            new Agent(config, NodeDiscovery.open(config, true), store, HealthEvents.NONE, Clock.systemUTC());
        UnixGrpc grpc = new UnixGrpc("latency-client", 1);
        UnixGrpc served = new UnixGrpc("latency-served", 2);
        KubeletPublisher kubelet =
            new KubeletPublisher(
                config, new TopologyAwareChooser(), PluginEvents.NONE, List.of(), ledger, served)) {
      agent.start();
      kubelet.start();
      ManagedChannel channel = grpc.channel(plugins.resolve("acceld-nvidia.com_gpu.sock"));
      ListAndWatchLog updates = ListAndWatchLog.open(channel, Duration.ofSeconds(10));
      updates.await(r -> r.getDevicesCount() == 8 && ListAndWatchLog.allHealthy(r));

      List<Long> xid = new ArrayList<>();
      List<Long> nodes = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        int gpu = round % 8;
        String id = node.gpus().get(gpu).uuid();
        updates.clear();
        long start = System.nanoTime();
        control.acceld_fake_inject_event(gpu, XID_EVENT, 79);
        xid.add(updates.await(r -> ListAndWatchLog.unhealthy(r, id)) - start);
        updates.await(ListAndWatchLog::allHealthy);

        updates.clear();
        start = System.nanoTime();
        HotPlug.removeDevNode(node.tree(), "nvidia" + gpu);
        nodes.add(updates.await(r -> ListAndWatchLog.unhealthy(r, id)) - start);
        node.tree().devNode("nvidia" + gpu);
        updates.await(ListAndWatchLog::allHealthy);
      }
      ListAndWatchLog.report("XID 79 injected -> ListAndWatch", xid);
      ListAndWatchLog.report("device node removed -> ListAndWatch", nodes);
      channel.shutdownNow();
    }
  }
}
