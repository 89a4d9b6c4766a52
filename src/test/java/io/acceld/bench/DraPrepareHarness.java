package io.acceld.bench;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import io.acceld.agent.AgentDaemon;
import io.acceld.config.ConfigLoader;
import io.acceld.dra.StandInKubelet;
import io.acceld.nvml.NvmlEventType;
import io.acceld.proto.dra.v1.Claim;
import io.acceld.proto.dra.v1.NodePrepareResourceResponse;
import io.acceld.proto.dra.v1.NodePrepareResourcesRequest;
import io.acceld.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.acceld.proto.drahealth.v1alpha1.HealthStatus;
import io.acceld.proto.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kube.KubeApiDouble;
import io.acceld.testing.kubelet.KubeletDouble;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DRA's latencies through the real {@link AgentDaemon} on the eight-GPU fixture node with the NVML
 * double, the API-server stand-in ({@link KubeApiDouble}) on loopback and the stand-in kubelet on
 * the real Unix sockets:
 *
 * <ol>
 *   <li>NodePrepareResources (v1) of one claim of 1 GPU and of 8 GPUs: the kubelet's call, which
 *       reads the claim from the API server, leases, waits for the lease to be persisted and writes
 *       the CDI spec (each claim is unprepared again, untimed, before the next);
 *   <li>XID injected → the NodeWatchResources stream says UNHEALTHY, and XID → the GPU is gone from
 *       the slice the API server holds (a quiet node: samples 1.5 s apart; {@code
 *       --health-quarantine 300ms} lets the GPU come back between samples).
 * </ol>
 *
 * <p>Arguments {@code name=value}: {@code warmup=50 prepares=300 xids=20 dir=/tmp}. Run with {@code
 * sh src/jmh/dra-prepare-bench.sh}. {@code serveApi=FILE} instead only serves an API-server
 * stand-in and writes its kubeconfig to FILE (for the footprint runs with DRA on, as node {@code
 * bench-fp}), until killed.
 */
public final class DraPrepareHarness {
  static final String DRIVER = "gpu.acceld.io";
  static final String NODE = "bench-node";
  static final Duration WAIT = Duration.ofSeconds(10);

  private DraPrepareHarness() {}

  public static void main(String[] argv) throws Exception {
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME))
        .setLevel(Level.WARN);
    Map<String, String> args = new HashMap<>();
    for (String a : argv) {
      String[] kv = a.split("=", 2);
      args.put(kv[0], kv.length > 1 ? kv[1] : "");
    }
    if (args.containsKey("serveApi")) {
      serveApi(Path.of(args.get("serveApi")));
      return;
    }
    int warmup = Integer.parseInt(args.getOrDefault("warmup", "50"));
    int prepares = Integer.parseInt(args.getOrDefault("prepares", "300"));
    int xids = Integer.parseInt(args.getOrDefault("xids", "20"));

    // dir=/dev/shm takes the disk's fsyncs (the lease checkpoint, the CDI spec) out of the figures.
    Path root =
        args.containsKey("dir")
            ? Files.createTempDirectory(Path.of(args.get("dir")), "dra-prepare")
            : Files.createTempDirectory("dra-prepare");
    System.out.printf("state, CDI specs and sockets under %s%n", root);
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        KubeApiDouble api = KubeApiDouble.start()) {
      api.addNode(NODE, "uid-" + NODE);
      Files.createDirectories(root.resolve("kube"));
      Map<String, String> flags = DaemonFlags.onFixture(root, node, nvml, kubelet);
      flags.put("dra-driver", DRIVER);
      flags.put("kubeconfig", api.kubeconfig(root.resolve("kube"), null).toString());
      flags.put("node-name", NODE);
      flags.put("kubelet-plugins-dir", root.resolve("kubelet/plugins").toString());
      flags.put("plugins-registry-dir", root.resolve("kubelet/plugins_registry").toString());
      flags.put("cdi-dir", root.resolve("cdi").toString());
      flags.put("health-quarantine", "300ms");
      Files.createDirectories(root.resolve("kubelet/plugins_registry"));
      try (AgentDaemon daemon =
              AgentDaemon.start(ConfigLoader.load(flags, Map.of(), Optional.empty()));
          StandInKubelet draKubelet =
              new StandInKubelet(root.resolve("kubelet/plugins_registry"))) {
        ManagedChannel endpoint = draKubelet.register(WAIT).endpoint();
        awaitTrue("8 devices published", WAIT, () -> published(api, node).size() == 8);
        System.out.printf("node: 8 GPUs, API-server stand-in on %s%n", api.url());

        if (args.containsKey("probeGet")) {
          api.putClaim("bench", "probe", claim("probe", "uid-probe", "gpu-0"));
          java.net.http.HttpClient http =
              java.net.http.HttpClient.newBuilder()
                  .version(java.net.http.HttpClient.Version.HTTP_1_1)
                  .build();
          Latencies gets = new Latencies();
          for (int i = 0; i < 100; i++) {
            long start = System.nanoTime();
            http.send(
                java.net.http.HttpRequest.newBuilder(
                        api.url()
                            .resolve(
                                "/apis/resource.k8s.io/v1/namespaces/bench/resourceclaims/probe"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
            gets.add(System.nanoTime() - start);
          }
          gets.report("GET a claim from the stand-in, JDK HttpClient");
        }
        String[] all = new String[8];
        for (int i = 0; i < 8; i++) {
          all[i] = "gpu-" + node.gpus().get(i).minor();
        }
        for (int size : new int[] {1, 8}) {
          Latencies l = new Latencies();
          for (int i = 0; i < warmup + prepares; i++) {
            String uid = "uid-" + size + "-" + i;
            String name = "c" + size + "-" + i;
            String[] devices = new String[size];
            for (int d = 0; d < size; d++) {
              devices[d] = all[(i + d) % 8];
            }
            api.putClaim("bench", name, claim(name, uid, devices));
            Claim c = Claim.newBuilder().setNamespace("bench").setName(name).setUid(uid).build();
            long start = System.nanoTime();
            NodePrepareResourceResponse r =
                StandInKubelet.prepareV1(
                        endpoint, NodePrepareResourcesRequest.newBuilder().addClaims(c).build())
                    .getClaimsOrThrow(uid);
            long took = System.nanoTime() - start;
            if (!r.getError().isEmpty() || r.getDevicesCount() != size) {
              throw new IllegalStateException("prepare failed: " + r);
            }
            if (i >= warmup) {
              l.add(took);
            }
            String error =
                StandInKubelet.unprepareV1(
                        endpoint, NodeUnprepareResourcesRequest.newBuilder().addClaims(c).build())
                    .getClaimsOrThrow(uid)
                    .getError();
            if (!error.isEmpty()) {
              throw new IllegalStateException("unprepare failed: " + error);
            }
          }
          l.report("NodePrepareResources, claim of " + size + " GPU(s)");
        }

        StandInKubelet.HealthStream stream = draKubelet.watchHealth(endpoint);
        Latencies toStream = new Latencies();
        Latencies toSlice = new Latencies();
        int lost = 0;
        for (int i = 0; i < xids; i++) {
          int gpu = i % 8;
          String name = all[gpu];
          awaitTrue(name + " back in the slice", WAIT, () -> published(api, node).contains(name));
          Thread.sleep(1500); // a quiet node: the slice's last write is over a second old
          stream.received.clear();
          long start = System.nanoTime();
          nvml.control().acceld_fake_inject_event(gpu, NvmlEventType.XID_CRITICAL_ERROR, 79);
          long seen = awaitUnhealthy(stream, name, start + TimeUnit.MILLISECONDS.toNanos(500));
          if (seen < 0) {
            lost++; // NVML loses an event queued in an event set being replaced; so does the double
            continue;
          }
          toStream.add(seen - start);
          while (published(api, node).contains(name)) {
            if (System.nanoTime() - start > WAIT.toNanos()) {
              throw new IllegalStateException(name + " never left the slice");
            }
            // Not a spin: on a small machine a spinning reader takes the core the agent needs.
            java.util.concurrent.locks.LockSupport.parkNanos(500_000);
          }
          toSlice.add(System.nanoTime() - start);
        }
        toStream.report("XID -> health stream UNHEALTHY");
        toSlice.report("XID -> gone from the API server's slice");
        System.out.printf("XIDs the agent never saw (retried): %d%n", lost);
        stream.cancel();
      }
    }
    System.exit(0);
  }

  /** The time the stream said {@code name} UNHEALTHY, or -1 if it did not by {@code deadline}. */
  private static long awaitUnhealthy(StandInKubelet.HealthStream stream, String name, long deadline)
      throws InterruptedException {
    while (true) {
      long left = deadline - System.nanoTime();
      NodeWatchResourcesResponse next =
          left <= 0 ? null : stream.received.poll(left, TimeUnit.NANOSECONDS);
      if (next == null) {
        return -1;
      }
      long at = System.nanoTime();
      if (next.getDevicesList().stream()
          .anyMatch(
              d ->
                  d.getDevice().getDeviceName().equals(name)
                      && d.getHealth() == HealthStatus.UNHEALTHY)) {
        return at;
      }
    }
  }

  private static java.util.Set<String> published(KubeApiDouble api, FixtureNode node) {
    java.util.Set<String> names = new java.util.TreeSet<>();
    for (JsonNode slice : api.slices(NODE, DRIVER)) {
      for (JsonNode d : slice.path("spec").path("devices")) {
        names.add(d.path("name").asText());
      }
    }
    return names;
  }

  private static String claim(String name, String uid, String... devices) {
    StringBuilder results = new StringBuilder();
    for (String d : devices) {
      if (results.length() > 0) {
        results.append(',');
      }
      results.append(
          String.format(
              "{\"request\":\"gpus\",\"driver\":\"%s\",\"pool\":\"%s\",\"device\":\"%s\"}",
              DRIVER, NODE, d));
    }
    return String.format(
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\","
            + "\"metadata\":{\"namespace\":\"bench\",\"name\":\"%s\",\"uid\":\"%s\"},"
            + "\"status\":{\"allocation\":{\"devices\":{\"results\":[%s]}}}}",
        name, uid, results);
  }

  private static void awaitTrue(String what, Duration within, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not within " + within + ": " + what);
      }
      Thread.sleep(5);
    }
  }

  /** An API-server stand-in on loopback, its kubeconfig in {@code kubeconfig}, until killed. */
  private static void serveApi(Path kubeconfig) throws Exception {
    KubeApiDouble api = KubeApiDouble.start();
    api.addNode("bench-fp", "uid-bench-fp");
    Path written = api.kubeconfig(Files.createTempDirectory("dra-api"), null);
    Files.copy(written, kubeconfig, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    System.out.println("serving " + api.url() + ", kubeconfig " + kubeconfig);
    Thread.currentThread().join();
  }
}
