package io.acceld.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.dra.StandInKubelet;
import io.acceld.proto.dra.v1.Claim;
import io.acceld.proto.dra.v1.NodePrepareResourceResponse;
import io.acceld.proto.dra.v1.NodePrepareResourcesRequest;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.Fixtures;
import io.acceld.testing.DaemonFlags;
import io.acceld.testing.Eventually;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.kube.KubeApiDouble;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A prepared DRA claim survives {@code kill -9} of the agent process: the kubelet does not prepare
 * again after a plugin restart, so the devices must stay held by the claim (never offered to the
 * device plugin in between), its CDI spec must be there, and a repeated Prepare must answer the
 * same. The lease is persisted before Prepare answers, so there is no instant at which the answer
 * is out and the lease is not.
 */
class DraKillNineIT {
  static final String DRIVER = "gpu.acceld.io";
  static final String NODE = "node-k9";
  static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path root;

  @Test
  void aPreparedClaimIsStillHeldAndAnsweredTheSameAfterKillNine() throws Exception {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    NvmlDouble nvml = NvmlDouble.create(root.resolve("nvml"), node.nvmlScenario());
    Path registry = Files.createDirectories(root.resolve("kubelet/plugins_registry"));
    Path cdi = root.resolve("cdi");
    try (KubeletDouble kubelet = KubeletDouble.start(root.resolve("kubelet/device-plugins"));
        KubeApiDouble api = KubeApiDouble.start()) {
      api.addNode(NODE, "uid-" + NODE);
      Path kubeconfig = api.kubeconfig(Files.createDirectories(root.resolve("kube")), null);
      String device = "gpu-" + node.gpus().get(2).minor();
      ObjectNode claim = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
      claim.putObject("metadata").put("namespace", "ml").put("name", "train").put("uid", "u-1");
      claim
          .putObject("status")
          .putObject("allocation")
          .putObject("devices")
          .putArray("results")
          .addObject()
          .put("request", "gpu")
          .put("driver", DRIVER)
          .put("pool", NODE)
          .put("device", device);
      api.putClaim("ml", "train", claim.toString());

      Map<String, String> flags = DaemonFlags.onFixture(root, node, nvml, kubelet);
      flags.remove("metrics-address");
      flags.put("dra-driver", DRIVER);
      flags.put("kubeconfig", kubeconfig.toString());
      flags.put("node-name", NODE);
      flags.put("kubelet-plugins-dir", root.resolve("kubelet/plugins").toString());
      flags.put("plugins-registry-dir", registry.toString());
      flags.put("cdi-dir", cdi.toString());
      int port = AgentProcess.freePort();
      Claim ref = Claim.newBuilder().setNamespace("ml").setName("train").setUid("u-1").build();
      NodePrepareResourceResponse first;
      String uuid = node.gpus().get(2).uuid();

      try (AgentProcess agent = AgentProcess.start(flags, port, root.resolve("agent-0.log"));
          StandInKubelet dra = new StandInKubelet(registry)) {
        first = prepare(dra.register(WAIT).endpoint(), ref);
        assertThat(first.getError()).as(agent.log()).isEmpty();
        assertThat(first.getDevicesList())
            .singleElement()
            .satisfies(
                d -> {
                  assertThat(d.getDeviceName()).isEqualTo(device);
                  assertThat(d.getCdiDeviceIdsList()).isNotEmpty();
                });
        agent.killNine();
      }
      assertThat(specs(cdi)).as("the claim's CDI spec").hasSize(1);

      try (AgentProcess agent = AgentProcess.start(flags, port, root.resolve("agent-1.log"));
          StandInKubelet dra = new StandInKubelet(registry)) {
        // Held by the claim from the first answer of the restarted agent on.
        Eventually.await(
            "the restarted agent answers /devices", WAIT, () -> agent.devices().isPresent());
        Holding held = agent.devices().orElseThrow().get(uuid);
        assertThat(held.kind()).as(agent.log()).isEqualTo("dra_claim");
        assertThat(held.holder()).isEqualTo("ml/train");
        // The device plugin never offers it as free.
        kubelet.awaitDevices("nvidia.com/gpu", d -> d.size() == 8, WAIT);
        assertThat(kubelet.devices("nvidia.com/gpu"))
            .filteredOn(d -> d.id().equals(uuid))
            .allSatisfy(d -> assertThat(d.healthy()).as("held, so not offered").isFalse());
        // A repeated Prepare (a kubelet retry) answers exactly as before.
        assertThat(prepare(dra.register(WAIT).endpoint(), ref)).isEqualTo(first);
        assertThat(specs(cdi)).hasSize(1);
      }
    }
  }

  private static NodePrepareResourceResponse prepare(io.grpc.ManagedChannel endpoint, Claim ref) {
    return StandInKubelet.prepareV1(
            endpoint, NodePrepareResourcesRequest.newBuilder().addClaims(ref).build())
        .getClaimsOrThrow(ref.getUid());
  }

  private static java.util.List<Path> specs(Path cdi) throws Exception {
    if (!Files.isDirectory(cdi)) {
      return java.util.List.of();
    }
    try (Stream<Path> files = Files.list(cdi)) {
      return files.filter(f -> f.getFileName().toString().contains("claim_u-1")).toList();
    }
  }
}
