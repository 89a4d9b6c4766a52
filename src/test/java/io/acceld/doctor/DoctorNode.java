package io.acceld.doctor;

import io.acceld.cli.CliContext;
import io.acceld.cli.Main;
import io.acceld.kubelet.podresources.FakePodResources;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kubelet.KubeletDouble;
import io.acceld.transport.UnixGrpc;
import io.grpc.Server;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The simulated node in its healthy state, as doctor meets it: the eight-GPU fixture tree (real
 * character devices under its {@code dev}), the NVML double loaded through the production binding,
 * a kubelet double on a real {@code kubelet.sock} and a pod-resources server on its real socket.
 * Tests break one part and run doctor in-process with the node's flags.
 */
final class DoctorNode implements AutoCloseable {
  final Path root;
  final FixtureNode node;
  final NvmlDouble nvml;
  final KubeletDouble kubelet;
  private final UnixGrpc grpc = new UnixGrpc("test-doctor-podresources", 1);
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final Server podResources;
  private final Map<String, String> flags = new LinkedHashMap<>();

  /** What one doctor run printed and returned. */
  record Run(int exit, String out, String err) {
    List<String> lines() {
      return out.lines().toList();
    }

    /** The one line whose subject is {@code subject}. */
    String line(String subject) {
      List<String> matching =
          lines().stream()
              .filter(l -> l.length() > 2 && l.substring(2).startsWith(subject + ": "))
              .toList();
      if (matching.size() != 1) {
        throw new AssertionError("no single line for '" + subject + "' in:\n" + out + err);
      }
      return matching.get(0);
    }
  }

  DoctorNode(Path root) throws IOException {
    this(root, Fixtures.eightGpuNode(root.resolve("node")));
  }

  DoctorNode(Path root, FixtureNode node) throws IOException {
    this.root = root;
    this.node = node;
    this.nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    this.kubelet =
        KubeletDouble.start(Files.createDirectories(root.resolve("kubelet/device-plugins")));
    Path podResourcesSocket =
        Files.createDirectories(root.resolve("kubelet/pod-resources")).resolve("kubelet.sock");
    this.podResources =
        grpc.startServer(podResourcesSocket, List.of(new FakePodResources()), List.of(), executor);
    flags.put("sysfs-root", node.tree().sysfsRoot().toString());
    flags.put("dev-root", node.tree().devRoot().toString());
    flags.put("proc-root", node.tree().procRoot().toString());
    flags.put("nvml-library", nvml.libraryPath().toString());
    flags.put("device-plugin-dir", kubelet.deviceDir().toString());
    flags.put("plugins-registry-dir", root.resolve("kubelet/plugins_registry").toString());
    flags.put("pod-resources-socket", podResourcesSocket.toString());
    flags.put("state-dir", root.resolve("state").toString());
    flags.put("cdi-dir", root.resolve("cdi").toString());
  }

  /** Sets (or, with null, removes) one setting flag, by key without dashes. */
  DoctorNode flag(String key, String value) {
    if (value == null) {
      flags.remove(key);
    } else {
      flags.put(key, value);
    }
    return this;
  }

  /** Runs {@code acceld doctor} with the node's flags and {@code more}. */
  Run doctor(String... more) {
    List<String> args = new ArrayList<>(List.of("doctor"));
    flags.forEach(
        (k, v) -> {
          args.add("--" + k);
          args.add(v);
        });
    args.addAll(List.of(more));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        Main.execute(
            args.toArray(String[]::new),
            new CliContext(Map.of(), new PrintWriter(out, true), new PrintWriter(err, true)));
    return new Run(exit, out.toString(), err.toString());
  }

  /**
   * The setting flags doctor runs with, by key without dashes: an agent started with them runs on
   * the same node.
   */
  Map<String, String> flags() {
    return Map.copyOf(flags);
  }

  Path dev(String relative) {
    return node.tree().devRoot().resolve(relative);
  }

  void stopPodResources() throws InterruptedException {
    podResources.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    kubelet.close();
    stopPodResources();
    grpc.close();
    executor.shutdownNow();
  }
}
