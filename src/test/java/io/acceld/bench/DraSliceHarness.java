package io.acceld.bench;

import io.acceld.dra.apiserver.DraApiSettings;
import io.acceld.dra.apiserver.SlicePublisher;
import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryStore;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.Topology;
import io.acceld.kube.KubeConfigLoader;
import io.acceld.ledger.DeviceLedger;
import io.acceld.testing.TestDevices;
import io.acceld.testing.kube.KubeApiDouble;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What one node's DRA side costs the API server (issue: DRA API-server side): the requests it makes
 * by verb, measured against {@link KubeApiDouble} over real HTTP with the publisher's production
 * timings, in three phases on an eight-GPU node:
 *
 * <ol>
 *   <li>idle: nothing changes;
 *   <li>one GPU flapping (Unhealthy, then Healthy) every second;
 *   <li>one GPU flapping every 100 ms (what the one-write-a-second cap is for).
 * </ol>
 *
 * <p>Arguments {@code name=value}: {@code idleSeconds=120 flapSeconds=60 fastSeconds=30
 * watchTimeout=10m}. Run with {@code sh src/jmh/dra-bench.sh}.
 */
public final class DraSliceHarness {
  private DraSliceHarness() {}

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new HashMap<>();
    for (String a : argv) {
      String[] kv = a.split("=", 2);
      args.put(kv[0], kv.length > 1 ? kv[1] : "");
    }
    long idleSeconds = Long.parseLong(args.getOrDefault("idleSeconds", "120"));
    long flapSeconds = Long.parseLong(args.getOrDefault("flapSeconds", "60"));
    long fastSeconds = Long.parseLong(args.getOrDefault("fastSeconds", "30"));
    Duration watchTimeout =
        Duration.parse("PT" + args.getOrDefault("watchTimeout", "10m").toUpperCase(Locale.ROOT));
    DraApiSettings.Timings defaults = DraApiSettings.Timings.DEFAULT;
    DraApiSettings.Timings timings =
        new DraApiSettings.Timings(
            defaults.requestTimeout(),
            defaults.settle(),
            defaults.minWriteInterval(),
            defaults.backoffFirst(),
            defaults.backoffMax(),
            watchTimeout);

    Path dir = Files.createTempDirectory("dra-bench");
    List<Device> gpus = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      gpus.add(TestDevices.nvidia(i, i / 4));
    }
    NodeInfo node = new NodeInfo(Optional.of("580.95.05"), Optional.of("13.0"));
    try (KubeApiDouble api = KubeApiDouble.start()) {
      api.addNode("node-a", "uid-a");
      InventoryStore store = new InventoryStore();
      DeviceLedger ledger = DeviceLedger.inMemory(Clock.systemUTC());
      store.subscribe(ledger);
      store.publish(new Inventory(gpus, node, Topology.EMPTY));
      DraApiSettings settings =
          new DraApiSettings(
              "gpu.acceld.io",
              "node-a",
              KubeConfigLoader.fromFile(api.kubeconfig(dir, "t"), "bench"),
              timings);
      try (SlicePublisher publisher =
          SlicePublisher.start(settings, ledger, new SimpleMeterRegistry(), Clock.systemUTC())) {
        long t0 = System.nanoTime();
        while (!publisher.status().published()) {
          Thread.sleep(5);
        }
        System.out.printf(
            "start: published in %.0f ms with %s%n",
            (System.nanoTime() - t0) / 1e6, api.requestCounts());

        api.resetCounts();
        Thread.sleep(idleSeconds * 1000);
        report("idle", idleSeconds, api.requestCounts(), watchTimeout);

        latency(
            store, api, gpus, node, Integer.parseInt(args.getOrDefault("latencySamples", "20")));

        api.resetCounts();
        flap(store, gpus, node, flapSeconds, Duration.ofSeconds(1));
        report("one GPU flapping every 1 s", flapSeconds, api.requestCounts(), watchTimeout);

        api.resetCounts();
        flap(store, gpus, node, fastSeconds, Duration.ofMillis(100));
        report("one GPU flapping every 100 ms", fastSeconds, api.requestCounts(), watchTimeout);
      }
      ledger.close();
    }
  }

  /**
   * On a quiet node (1.5 s between changes, past the one-write-a-second window): the time from an
   * inventory change (GPU 3 Unhealthy, then Healthy again) to the slice without it, and with it.
   */
  private static void latency(
      InventoryStore store, KubeApiDouble api, List<Device> gpus, NodeInfo node, int samples)
      throws InterruptedException {
    List<Double> millis = new ArrayList<>();
    for (int i = 0; i < samples; i++) {
      Thread.sleep(1500);
      boolean sick = i % 2 == 0;
      List<Device> now = new ArrayList<>(gpus);
      if (sick) {
        now.set(3, gpus.get(3).withHealth(Health.UNHEALTHY, Optional.of("latency")));
      }
      long start = System.nanoTime();
      store.publish(new Inventory(now, node, Topology.EMPTY));
      int want = sick ? 7 : 8;
      while (devicesPublished(api) != want) {
        Thread.sleep(1);
      }
      millis.add((System.nanoTime() - start) / 1e6);
    }
    millis.sort(null);
    System.out.printf(
        "change to slice on a quiet node: n=%d p50 %.0f ms, p90 %.0f ms, max %.0f ms%n",
        millis.size(),
        millis.get(millis.size() / 2),
        millis.get((int) Math.min(millis.size() - 1, Math.ceil(millis.size() * 0.9) - 1)),
        millis.get(millis.size() - 1));
  }

  private static int devicesPublished(KubeApiDouble api) {
    return api.slices("node-a", "gpu.acceld.io").stream()
        .mapToInt(s -> s.path("spec").path("devices").size())
        .sum();
  }

  private static void flap(
      InventoryStore store, List<Device> gpus, NodeInfo node, long seconds, Duration every)
      throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    boolean sick = false;
    while (System.nanoTime() < end) {
      sick = !sick;
      List<Device> now = new ArrayList<>(gpus);
      if (sick) {
        now.set(3, gpus.get(3).withHealth(Health.UNHEALTHY, Optional.of("flapping")));
      }
      store.publish(new Inventory(now, node, Topology.EMPTY));
      Thread.sleep(every.toMillis());
    }
    store.publish(new Inventory(gpus, node, Topology.EMPTY));
  }

  private static void report(
      String phase, long seconds, Map<String, Long> counts, Duration watchTimeout) {
    long writes =
        counts.getOrDefault("create", 0L)
            + counts.getOrDefault("update", 0L)
            + counts.getOrDefault("delete", 0L);
    long reads =
        counts.getOrDefault("get", 0L)
            + counts.getOrDefault("list", 0L)
            + counts.getOrDefault("watch", 0L);
    System.out.printf(
        "%s: %d s, requests %s; writes %d (%.2f/s, %.0f/h), reads %d (%.0f/h); watch timeout %s%n",
        phase,
        seconds,
        new java.util.TreeMap<>(counts),
        writes,
        writes / (double) seconds,
        writes * 3600.0 / seconds,
        reads,
        reads * 3600.0 / seconds,
        watchTimeout);
  }
}
