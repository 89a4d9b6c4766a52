package io.acceld.bench;

import io.acceld.simulate.HotPlug;
import com.sun.jna.Library;
import com.sun.jna.Native;
import io.acceld.agent.Agent;
import io.acceld.agent.NodeDiscovery;
import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigLoader;
import io.acceld.allocation.TopologyAwareChooser;
import io.acceld.health.HealthEvents;
import io.acceld.inventory.InventoryStore;
import io.acceld.kubelet.KubeletPublisher;
import io.acceld.kubelet.PluginEvents;
import io.acceld.ledger.DeviceLedger;
import java.time.Clock;
import io.acceld.transport.UnixGrpc;
import io.acceld.proto.deviceplugin.v1beta1.DevicePluginGrpc;
import io.acceld.proto.deviceplugin.v1beta1.Empty;
import io.acceld.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

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
    Path nvmlDir = Files.createDirectories(work.resolve("nvml"));
    Path library = nvmlDir.resolve("libnvidia-ml.so.1");
    Files.copy(
        Path.of(System.getProperty("acceld.nativeProbes", "target/native-probes")).resolve("libnvidia-ml.so.1"),
        library,
        StandardCopyOption.REPLACE_EXISTING);
    node.nvmlScenario().writeTo(nvmlDir);
    // The kubelet's directory: the agent waits for it rather than create it.
    Path plugins = Files.createDirectories(work.resolve("device-plugins"));
    AgentConfig config =
        ConfigLoader.load(
            Map.ofEntries(
                Map.entry("sysfs-root", node.tree().sysfsRoot().toString()),
                Map.entry("dev-root", node.tree().devRoot().toString()),
                Map.entry("proc-root", node.tree().procRoot().toString()),
                Map.entry("nvml-library", library.toString()),
                Map.entry("device-plugin-dir", plugins.toString()),
                Map.entry("kubelet-registration", "none"),
                Map.entry("rescan-interval", "0"),
                Map.entry("health-quarantine", "20ms"),
                Map.entry("health-probe-interval", "50ms")),
            Map.of(),
            Optional.empty());
    Control control = Native.load(library.toString(), Control.class);

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
      BlockingQueue<Stamped> updates = new LinkedBlockingQueue<>();
      DevicePluginGrpc.newStub(channel)
          .listAndWatch(
              Empty.getDefaultInstance(),
              new StreamObserver<>() {
                @Override
                public void onNext(ListAndWatchResponse r) {
                  updates.add(new Stamped(System.nanoTime(), r));
                }

                @Override
                public void onError(Throwable t) {}

                @Override
                public void onCompleted() {}
              });
      awaitList(updates, r -> r.getDevicesCount() == 8 && allHealthy(r));

      List<Long> xid = new ArrayList<>();
      List<Long> nodes = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        int gpu = round % 8;
        String id = node.gpus().get(gpu).uuid();
        updates.clear();
        long start = System.nanoTime();
        control.acceld_fake_inject_event(gpu, XID_EVENT, 79);
        xid.add(awaitList(updates, r -> unhealthy(r, id)) - start);
        awaitList(updates, HealthLatencyHarness::allHealthy);

        updates.clear();
        start = System.nanoTime();
        HotPlug.removeDevNode(node.tree(), "nvidia" + gpu);
        nodes.add(awaitList(updates, r -> unhealthy(r, id)) - start);
        node.tree().devNode("nvidia" + gpu);
        awaitList(updates, HealthLatencyHarness::allHealthy);
      }
      report("XID 79 injected -> ListAndWatch", xid);
      report("device node removed -> ListAndWatch", nodes);
      channel.shutdownNow();
    }
  }

  private record Stamped(long nanos, ListAndWatchResponse response) {}

  private static boolean allHealthy(ListAndWatchResponse r) {
    return r.getDevicesList().stream().allMatch(d -> d.getHealth().equals("Healthy"));
  }

  private static boolean unhealthy(ListAndWatchResponse r, String id) {
    return r.getDevicesList().stream().anyMatch(d -> d.getID().equals(id) && d.getHealth().equals("Unhealthy"));
  }

  /** Waits for a list matching {@code condition}; returns when it was received. */
  private static long awaitList(BlockingQueue<Stamped> updates, Predicate<ListAndWatchResponse> condition)
      throws InterruptedException {
    while (true) {
      Stamped s = updates.poll(10, TimeUnit.SECONDS);
      if (s == null) {
        throw new IllegalStateException("no matching ListAndWatch update within 10 s");
      }
      if (condition.test(s.response())) {
        return s.nanos();
      }
    }
  }

  private static void report(String what, List<Long> nanos) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    System.out.printf(
        "%-40s n=%d  p50=%.2f ms  p90=%.2f ms  p99=%.2f ms  max=%.2f ms%n",
        what,
        sorted.size(),
        percentile(sorted, 0.50),
        percentile(sorted, 0.90),
        percentile(sorted, 0.99),
        sorted.get(sorted.size() - 1) / 1e6);
  }

  private static double percentile(List<Long> sorted, double p) {
    int index = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, index)) / 1e6;
  }
}
