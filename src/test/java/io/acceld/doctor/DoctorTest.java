package io.acceld.doctor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceld.config.MigLayout;
import io.acceld.kubelet.CdiSpecWriter;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.FixtureVariants;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.LockHolder;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.TestDevices;
import io.acceld.util.LockQuery;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code acceld doctor} on the simulated node: healthy, then with each fault it checks for planted
 * in the real file trees, the NVML double or the kubelet's sockets, asserting the line an operator
 * reads and the fix it gives.
 */
class DoctorTest {
  @TempDir Path root;
  DoctorNode node;

  @BeforeEach
  void start() throws Exception {
    node = new DoctorNode(root);
  }

  @AfterEach
  void stop() throws Exception {
    node.close();
  }

  @Test
  void theHealthyNodePassesEveryCheckAndExitsZeroWithoutTouchingAnything() throws Exception {
    Map<Path, String> before = snapshot(root);

    DoctorNode.Run run = node.doctor();

    assertThat(run.exit()).as(run.out() + run.err()).isZero();
    assertThat(run.lines()).allSatisfy(l -> assertThat(l).matches("^[✓–] .*"));
    assertThat(run.line("nvml"))
        .startsWith("✓ nvml: loaded from " + node.nvml.libraryPath() + ", driver 550.54.15")
        .contains("driver 550.54.15, CUDA 12.4");
    assertThat(run.line("nvml symbols"))
        .isEqualTo("✓ nvml symbols: all 50 NVML functions acceld calls are exported");
    for (int i = 0; i < 8; i++) {
      assertThat(run.line("gpu " + i))
          .startsWith("✓ gpu " + i + ": " + node.node.gpus().get(i).uuid())
          .contains("0 uncorrectable", "MIG disabled", "NUMA node " + (i < 4 ? 0 : 1));
      assertThat(run.line("gpu " + i + " nodes"))
          .endsWith(node.dev("nvidia" + i) + " 195:" + i + " crw-rw-rw-");
    }
    assertThat(run.line("nvidia control nodes"))
        .contains(node.dev("nvidiactl") + " 195:255", node.dev("nvidia-uvm") + " 511:0");
    assertThat(run.line("kubelet socket"))
        .startsWith("✓ kubelet socket: " + node.kubelet.kubeletSocket())
        .contains("no Register sent");
    assertThat(run.line("kubelet pod-resources")).startsWith("✓");
    assertThat(run.line("state lock")).startsWith("✓").contains("does not exist");
    assertThat(run.line("mesos address")).startsWith("– mesos address: the bridge is off");
    // Reads only: no Register, and not a file created, removed or changed under the node.
    assertThat(node.kubelet.registrations()).isEmpty();
    assertThat(node.kubelet.registerAttempts("nvidia.com/gpu")).isZero();
    assertThat(snapshot(root)).isEqualTo(before);
  }

  @Test
  void noKubeletSocketFailsWithTheFix() throws Exception {
    node.kubelet.close();
    Files.deleteIfExists(node.kubelet.kubeletSocket());

    DoctorNode.Run run = node.doctor();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.line("kubelet socket"))
        .isEqualTo(
            "✗ kubelet socket: "
                + node.kubelet.kubeletSocket()
                + " is missing — fix: start the kubelet (systemctl start kubelet), which creates"
                + " it; if it runs with another --root-dir, set --device-plugin-dir to"
                + " <root-dir>/device-plugins; in a container, mount that directory");
    assertThat(run.line("nvml")).startsWith("✓");
  }

  @Test
  void aSocketNobodyServesIsCaughtByDialling() throws Exception {
    node.stopPodResources();
    // The socket file stays, as a killed kubelet's does: bound once, and nobody listens now.
    Path socket = root.resolve("kubelet/pod-resources/kubelet.sock");
    Files.deleteIfExists(socket);
    try (var stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      stale.bind(UnixDomainSocketAddress.of(socket));
    }

    DoctorNode.Run run = node.doctor();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.line("kubelet pod-resources"))
        .startsWith("✗ kubelet pod-resources: ")
        .contains("connecting fails: Connection refused")
        .contains("— fix: nothing serves it");
  }

  @Test
  void aMissingDeviceNodeNamesTheNodeAndHowTheDriverMakesItAgain() throws Exception {
    Files.delete(node.dev("nvidia3"));

    DoctorNode.Run run = node.doctor();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.line("gpu 3 nodes"))
        .startsWith("✗ gpu 3 nodes: ")
        .contains("device node " + node.dev("nvidia3") + " is missing")
        .contains("— fix: let the driver recreate it: nvidia-modprobe -c 3");
    assertThat(run.line("gpu 2 nodes")).startsWith("✓");
  }

  @Test
  void aNodeWithTheWrongMajorIsCaughtWithItsExpectedNumber() throws Exception {
    node.node.tree().charDevice("nvidia2", 10, 2);
    assumeTrue(isCharacterDevice(node.dev("nvidia2")), "mknod needs root");

    DoctorNode.Run run = node.doctor();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.line("gpu 2 nodes"))
        .contains(
            node.dev("nvidia2")
                + " is 10:2, expected 195:2 ('nvidia' in "
                + node.node.tree().procRoot().resolve("devices")
                + ")")
        .contains("— fix: remove the node (it is stale or was made by hand with the wrong number)");
  }

  @Test
  void aRegularFileWhereANodeShouldBeIsNotADevice() throws Exception {
    node.node.tree().devNode("nvidiactl");

    DoctorNode.Run run = node.doctor();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.line("nvidia control nodes"))
        .startsWith(
            "✗ nvidia control nodes: "
                + node.dev("nvidiactl")
                + " is a regular file, not a character device — fix: remove it");
  }

  @Test
  void nvmlAbsentSaysWhatWasTriedAndHowToInstallIt() {
    Path absent = root.resolve("no-driver/libnvidia-ml.so.1");
    node.flag("nvml-library", absent.toString());

    DoctorNode.Run run = node.doctor();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.line("nvml"))
        .isEqualTo(
            "✗ nvml: not found: tried "
                + absent
                + " (no such file) — fix: install the NVIDIA driver's user-space library"
                + " (libnvidia-ml.so.1, from the same driver release as the kernel module) or"
                + " point --nvml-library at it; in a container, run with the NVIDIA container"
                + " toolkit or mount the driver's library directory");
    assertThat(run.line("gpu health")).startsWith("– gpu health: not read: NVML is not loaded");
    // Discovery still finds the GPUs by PCI address and checks their nodes.
    assertThat(run.line("nvidia control nodes")).startsWith("✓");
  }

  @Test
  void aLibraryMissingFunctionsEveryDriverHasFailsNamingThem() throws Exception {
    NvmlDouble sparse = NvmlDouble.createSparse(root.resolve("sparse"), node.node.nvmlScenario());
    node.flag("nvml-library", sparse.libraryPath().toString());

    DoctorNode.Run run = node.doctor();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.line("nvml symbols"))
        .startsWith(
            "✗ nvml symbols: "
                + sparse.libraryPath()
                + " lacks 5 of the 50 functions acceld calls that every NVIDIA driver exports:"
                + " nvmlDeviceGetCpuAffinity, nvmlDeviceGetPowerUsage,"
                + " nvmlDeviceGetRetiredPagesPendingStatus, nvmlDeviceGetTopologyCommonAncestor,"
                + " nvmlEventSetCreate")
        .contains("— fix: this is not (all of) NVIDIA's NVML");
  }

  @Test
  void anOlderDriverPassesAndSaysWhatTheAgentGoesWithout() throws Exception {
    NvmlDouble old = NvmlDouble.createOldDriver(root.resolve("old"), node.node.nvmlScenario());
    node.flag("nvml-library", old.libraryPath().toString());

    DoctorNode.Run run = node.doctor();

    assertThat(run.exit()).as(run.out()).isZero();
    assertThat(run.line("nvml symbols"))
        .startsWith("✓ nvml symbols: 35 of the 50 functions acceld calls are exported; an older")
        .contains("nvmlDeviceGetMigMode", "so the agent goes without", "MIG", "NVLink topology");
    assertThat(run.line("gpu 0")).contains("MIG not supported");
  }

  @Test
  void aCorruptCheckpointFailsAndIsLeftWhereItIs() throws Exception {
    Path state = Files.createDirectories(root.resolve("state"));
    Path checkpoint = state.resolve("leases.checkpoint");
    String corrupt = "acceld-ledger 1 bytes=2 sha256=" + "0".repeat(64) + "\n{}";
    Files.writeString(checkpoint, corrupt);

    DoctorNode.Run run = node.doctor();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.line("state checkpoint"))
        .startsWith(
            "✗ state checkpoint: "
                + checkpoint
                + " is corrupt: its checksum does not match its content — fix: nothing is lost"
                + " for pods");
    // The agent moves such a file aside at start; doctor only reads it.
    assertThat(Files.readString(checkpoint)).isEqualTo(corrupt);
    assertThat(Files.list(state).toList()).containsExactly(checkpoint);
  }

  @Test
  void aStateLockHeldByALiveProcessFailsNamingItAndLeavesItHeld() throws Exception {
    Path lock = Files.createDirectories(root.resolve("state")).resolve("acceld.lock");
    try (LockHolder holder = LockHolder.start(lock)) {
      DoctorNode.Run run = node.doctor();

      assertThat(run.exit()).isEqualTo(1);
      assertThat(run.line("state lock"))
          .isEqualTo(
              "✗ state lock: "
                  + lock
                  + " is held by pid "
                  + holder.pid()
                  + ": an agent already runs over "
                  + root.resolve("state")
                  + ", and 'acceld run' with these settings would exit (code 6) — fix: if that"
                  + " agent is meant to run, check it instead: acceld doctor --agent"
                  + " http://127.0.0.1:9445 (its --metrics-address); otherwise stop it (systemctl"
                  + " stop acceld, or kill "
                  + holder.pid()
                  + ") or give this one its own --state-dir");
      assertThat(LockQuery.of(lock)).isInstanceOf(LockQuery.State.Held.class);
    }
  }

  @Test
  void cdiSpecsAreHeldToTheSchemaAndABrokenOneNamesWhatIsWrong() throws Exception {
    Path cdi = root.resolve("cdi");
    CdiSpecWriter writer = new CdiSpecWriter(cdi, Path.of("/dev"));
    writer.write("nvidia.com/gpu", List.of(TestDevices.nvidia(0, 0)));
    Files.writeString(
        cdi.resolve("acceld-amd.com_gpu.json"),
        "{\"cdiVersion\":\"0.6.0\",\"kind\":\"amd.com/gpu\",\"devices\":[{\"name\":\"x\"}]}");

    DoctorNode.Run run = node.doctor("--cdi", "true");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.line("cdi dir")).isEqualTo("✓ cdi dir: " + cdi + " exists and is writable");
    assertThat(run.line("cdi spec acceld-nvidia.com_gpu.json"))
        .isEqualTo(
            "✓ cdi spec acceld-nvidia.com_gpu.json: "
                + writer.specFile("nvidia.com/gpu")
                + " is a valid CDI spec with 1 device");
    assertThat(run.line("cdi spec acceld-amd.com_gpu.json"))
        .isEqualTo(
            "✗ cdi spec acceld-amd.com_gpu.json: "
                + cdi.resolve("acceld-amd.com_gpu.json")
                + " breaks the CDI schema: /devices/0 has no containerEdits — fix: delete it: the"
                + " agent writes it again as it starts and within --cdi-check-interval (30s by"
                + " default) while it runs; if the new one fails too, that is a bug to report");
  }

  @Test
  void aGpuWithPendingRetiredPagesAndEccErrorsFailsWithTheReset() throws Exception {
    try (var session = node.nvml.open()) { // the double's state lives while it is initialised
      assertThat(node.nvml.control().acceld_fake_set_ecc(5, 3, 2)).isZero();
      assertThat(node.nvml.control().acceld_fake_set_retired_pending(5, 1)).isZero();

      DoctorNode.Run run = node.doctor();

      assertThat(run.exit()).isEqualTo(1);
      assertThat(run.line("gpu 5"))
          .startsWith("✗ gpu 5: " + node.node.gpus().get(5).uuid())
          .contains(
              "2 uncorrectable ECC errors since the driver loaded", "retired pages are pending")
          .contains("— fix: drain the GPU's workloads, then reset it (nvidia-smi -r -i 5)");
      assertThat(run.line("gpu 4")).startsWith("✓");
    }
  }

  @Test
  void aLostGpuFailsAndTheOthersStillPass() throws Exception {
    try (var session = node.nvml.open()) {
      assertThat(node.nvml.control().acceld_fake_set_lost(1, 1)).isZero();

      DoctorNode.Run run = node.doctor();

      assertThat(run.exit()).isEqualTo(1);
      assertThat(run.line("gpu 1"))
          .contains("NVML reports it lost (GPU_IS_LOST: fallen off the bus)")
          .contains("— fix: drain the node and reboot it");
      assertThat(run.line("gpu 0")).startsWith("✓");
    }
  }

  @Test
  void aWedgedGpuCostsTheLimitOnceAndEveryOtherCheckStillRuns() throws Exception {
    try (var session = node.nvml.open()) {
      assertThat(node.nvml.control().acceld_fake_set_hung(6, 1)).isZero();
      try {
        long started = System.nanoTime();
        DoctorNode.Run run = node.doctor("--timeout", "2s");
        double seconds = (System.nanoTime() - started) / 1e9;

        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.line("gpu 6"))
            .isEqualTo(
                "✗ gpu 6: NVML calls on it did not return within 2s — fix: run nvidia-smi -i 6:"
                    + " if it hangs too, the GPU or the driver is wedged; drain the node, then"
                    + " reset the GPU (nvidia-smi -r -i 6) or reboot");
        assertThat(run.line("gpu 7")).startsWith("✓");
        assertThat(run.line("kubelet socket")).startsWith("✓");
        assertThat(run.line("state lock")).startsWith("✓");
        // The GPU readings and the discovery probe each wait once; nothing waits per GPU.
        assertThat(seconds).isLessThan(20);
      } finally {
        node.nvml.control().acceld_fake_set_hung(6, 0);
      }
    }
  }

  @Test
  void anotherVendorsDevicesAreCheckedWithTheirNodes() throws Exception {
    FixtureNode mixed = FixtureVariants.mixedNode(root.resolve("mixed"));
    assumeTrue(isCharacterDevice(mixed.tree().devRoot().resolve("kfd")), "mknod needs root");
    node.flag("sysfs-root", mixed.tree().sysfsRoot().toString())
        .flag("dev-root", mixed.tree().devRoot().toString())
        .flag("proc-root", mixed.tree().procRoot().toString())
        .flag("nvml-library", root.resolve("no-driver/libnvidia-ml.so.1").toString());
    Files.delete(mixed.tree().devRoot().resolve("dri/renderD129"));

    DoctorNode.Run run = node.doctor();

    Path dev = mixed.tree().devRoot();
    assertThat(run.line("amd.com/gpu 0000:41:00.0"))
        .isEqualTo(
            "✓ amd.com/gpu 0000:41:00.0: \"AMD Instinct MI210\" at 0000:41:00.0, NUMA node 0: "
                + dev.resolve("kfd")
                + " 509:0 crw-rw-rw-, "
                + dev.resolve("dri/card1")
                + " 226:1 crw-rw-rw-, "
                + dev.resolve("dri/renderD128")
                + " 226:128 crw-rw-rw-");
    assertThat(run.line("amd.com/gpu 0000:c1:00.0"))
        .startsWith("✗ amd.com/gpu 0000:c1:00.0: ")
        .contains("device node " + dev.resolve("dri/renderD129") + " is missing")
        .contains("— fix: let udev recreate it");
    assertThat(run.line("nvml")).startsWith("– nvml: ").contains("this node has no NVIDIA GPU");
    assertThat(run.lines()).noneMatch(l -> l.contains("nvidia control nodes"));
  }

  @Test
  void aMigGpusCapabilityNodesAreCheckedOnItsLine() throws Exception {
    node.close();
    node =
        new DoctorNode(
            root.resolve("mig"),
            Fixtures.node(root.resolve("mig/node"), 8, MigLayout.parse("0=1g.10gb*7")));
    node.flag("mig-strategy", "mixed");

    DoctorNode.Run healthy = node.doctor();

    assertThat(healthy.exit()).as(healthy.out()).isZero();
    assertThat(healthy.line("gpu 0")).contains("MIG enabled");
    assertThat(healthy.line("gpu 0 nodes"))
        .startsWith("✓ gpu 0 nodes: 7 MIG device(s) at " + node.node.gpus().get(0).pciAddress())
        .contains(node.dev("nvidia0") + " 195:0 crw-rw-rw-")
        .contains("nvidia-caps/nvidia-cap");

    String cap =
        healthy.line("gpu 0 nodes").replaceAll(".*/(nvidia-caps/nvidia-cap[0-9]+) .*", "$1");
    Files.delete(node.dev(cap));
    DoctorNode.Run broken = node.doctor();

    assertThat(broken.exit()).isEqualTo(1);
    assertThat(broken.line("gpu 0 nodes"))
        .contains("device node " + node.dev(cap) + " is missing")
        .contains(
            "— fix: for a MIG capability node, let the driver recreate it: nvidia-modprobe -f"
                + " with its capability file under /proc/driver/nvidia/capabilities");
  }

  @Test
  void aTakenMesosAddressIsNamedWithWhatAnswersThere() throws Exception {
    try (PeerServer other = PeerServer.answering(Map.of("/version", 200), "nginx/1.25")) {
      node.flag("mesos-address", "127.0.0.1:" + other.port());

      DoctorNode.Run run = node.doctor();

      assertThat(run.exit()).isEqualTo(1);
      assertThat(run.line("mesos address"))
          .isEqualTo(
              "✗ mesos address: 127.0.0.1:"
                  + other.port()
                  + " is taken: 127.0.0.1:"
                  + other.port()
                  + " accepts connections and is not an acceld bridge (GET /version:"
                  + " \"nginx/1.25\") — fix: stop the program that holds it (ss -ltnp 'sport = :"
                  + other.port()
                  + "' names it) or give acceld another --mesos-address");
    }
  }

  @Test
  void aFreeMesosAddressPasses() throws Exception {
    int port;
    try (var probe = new java.net.ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    node.flag("mesos-address", "127.0.0.1:" + port);

    assertThat(node.doctor().line("mesos address"))
        .isEqualTo("✓ mesos address: 127.0.0.1:" + port + " is free: nothing listens on it");
  }

  @Test
  void anUnhealthyAgentIsReportedWithItsOwnReasonsEscaped() throws Exception {
    String forged = "not alive: health probe loop stuck for 3m\n✓ agent healthz: forged\u001b[2J";
    try (PeerServer agent =
        PeerServer.answering(Map.of("/healthz", 503, "/readyz", 503, "/devices", 200), forged)) {
      DoctorNode.Run run = node.doctor("--agent", "http://127.0.0.1:" + agent.port());

      assertThat(run.exit()).isEqualTo(1);
      assertThat(run.line("agent healthz"))
          .startsWith(
              "✗ agent healthz: http://127.0.0.1:"
                  + agent.port()
                  + "/healthz: HTTP 503, \"not alive: health probe loop stuck for 3m\","
                  + " \"\\u2713 agent healthz: forged\\u001b[2J\"")
          .contains("— fix: the agent is stuck and its liveness probe or systemd restarts it");
      // Its forged line stays inside the quoted reason: every line is one of doctor's own.
      assertThat(run.lines()).filteredOn(l -> l.matches("^. agent healthz: .*")).hasSize(1);
      assertThat(run.line("agent readyz")).startsWith("✗ agent readyz: ");
    }
  }

  @Test
  void anAgentThatNeverAnswersCostsTheLimitOnce() throws Exception {
    try (PeerServer silent = PeerServer.silent()) {
      long started = System.nanoTime();
      DoctorNode.Run run =
          node.doctor("--agent", "http://127.0.0.1:" + silent.port(), "--timeout", "2s");
      double seconds = (System.nanoTime() - started) / 1e9;

      assertThat(run.exit()).isEqualTo(1);
      assertThat(run.line("agent healthz"))
          .isEqualTo(
              "✗ agent healthz: http://127.0.0.1:"
                  + silent.port()
                  + "/healthz: no answer within 2s — fix: is 'acceld run' up (systemctl status"
                  + " acceld, or kubectl -n kube-system get pods)? --agent takes its"
                  + " --metrics-address");
      assertThat(seconds).isLessThan(15);
    }
  }

  @Test
  void jsonIsOneDocumentWithEveryFindingAndItsFacts() throws Exception {
    Files.delete(node.dev("nvidia3"));

    DoctorNode.Run run = node.doctor("--json");

    assertThat(run.exit()).isEqualTo(1);
    JsonNode doc = new ObjectMapper().readTree(run.out());
    assertThat(doc.get("format").asInt()).isEqualTo(1);
    assertThat(doc.get("ok").asBoolean()).isFalse();
    JsonNode findings = doc.get("findings");
    assertThat(doc.get("counts").get("fail").asInt()).isEqualTo(1);
    assertThat(doc.get("counts").get("pass").asInt() + doc.get("counts").get("skip").asInt() + 1)
        .isEqualTo(findings.size());
    for (JsonNode f : findings) {
      assertThat(f.fieldNames())
          .toIterable()
          .containsExactly("check", "subject", "status", "found", "fix", "facts");
      assertThat(f.get("fix").isNull()).isEqualTo(!f.get("status").asText().equals("fail"));
    }
    JsonNode library = find(findings, "nvml");
    assertThat(library.get("status").asText()).isEqualTo("pass");
    assertThat(library.get("facts").get("driverVersion").asText()).isEqualTo("550.54.15");
    assertThat(library.get("facts").get("cudaVersion").asText()).isEqualTo("12.4");
    assertThat(library.get("facts").get("library").asText()).endsWith("libnvidia-ml.so.1");
    JsonNode gpu = find(findings, "gpu 3");
    assertThat(gpu.get("check").asText()).isEqualTo("gpu");
    assertThat(gpu.get("facts").get("uuid").asText()).isEqualTo(node.node.gpus().get(3).uuid());
    assertThat(gpu.get("facts").get("pciAddress").asText())
        .isEqualTo(node.node.gpus().get(3).pciAddress());
    JsonNode nodes = find(findings, "gpu 3 nodes");
    assertThat(nodes.get("status").asText()).isEqualTo("fail");
    assertThat(nodes.get("fix").asText()).contains("nvidia-modprobe -c 3");
    assertThat(find(findings, "nvml symbols").get("facts").get("missing")).isEmpty();
  }

  @Test
  void badUsageExitsTwo() {
    assertThat(node.doctor("--agent", "127.0.0.1:9445").exit()).isEqualTo(2);
    assertThat(node.doctor("--timeout", "soon").exit()).isEqualTo(2);
  }

  private static JsonNode find(JsonNode findings, String subject) {
    for (JsonNode f : findings) {
      if (f.get("subject").asText().equals(subject)) {
        return f;
      }
    }
    throw new AssertionError("no finding " + subject + " in " + findings);
  }

  static boolean isCharacterDevice(Path path) throws IOException {
    return Files.exists(path)
        && (((Integer) Files.getAttribute(path, "unix:mode")) & 0170000) == 0020000;
  }

  /** Every file under {@code dir} with its type, size, mode and modification time. */
  static Map<Path, String> snapshot(Path dir) throws IOException {
    Map<Path, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.toList()) {
        BasicFileAttributes a =
            Files.readAttributes(
                p, BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        files.put(
            p,
            (a.isDirectory() ? "d" : a.isSymbolicLink() ? "l" : a.isOther() ? "o" : "f")
                + " "
                + a.size()
                + " "
                + a.lastModifiedTime()
                + " "
                + Files.getAttribute(p, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS));
      }
    }
    return files;
  }
}
