package io.acceld.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceld.config.ConfigException;
import io.acceld.config.MigStrategy;
import io.acceld.config.SharingPolicy;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.InventoryStore;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.Topology;
import io.acceld.testing.Eventually;
import io.acceld.testing.TestDevices;
import io.acceld.testing.kube.KubeApiDouble;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node labels as an NFD NodeFeature object, against a real HTTP API-server stand-in. */
class NodeFeatureOutputTest {
  private static final String KEY = "default/acceld-features-for-node-a";

  @TempDir Path dir;
  private KubeApiDouble api;
  private final InventoryStore store = new InventoryStore();
  private Optional<NodeLabelsPublisher> publisher = Optional.empty();

  @BeforeEach
  void start() throws Exception {
    api = KubeApiDouble.start();
  }

  @AfterEach
  void stop() {
    publisher.ifPresent(NodeLabelsPublisher::close);
    api.close();
  }

  private static Inventory gpus(int count) {
    List<Device> devices =
        IntStream.range(0, count).mapToObj(i -> TestDevices.nvidia(i, 0)).toList();
    return new Inventory(devices, NodeInfo.EMPTY, Topology.EMPTY);
  }

  private NodeFeatureSink sink() throws Exception {
    return NodeFeatureSink.connect(
        api.kubeconfig(dir, null).toString(), Map.of("POD_NAMESPACE", "default"), "node-a");
  }

  private NodeLabelsPublisher publisher(NodeFeatureSink sink) {
    publisher =
        NodeLabelsPublisher.start(
            Optional.empty(),
            Optional.of(sink),
            store,
            inventory ->
                NodeLabels.of(
                    new LabelInputs(inventory, MigStrategy.NONE, r -> SharingPolicy.NONE)));
    return publisher.orElseThrow();
  }

  private JsonNode object() {
    return api.nodeFeatures().get(KEY);
  }

  @Test
  void theLabelsBecomeOneNodeFeatureForTheNodeWithoutAFeatureFile() throws Exception {
    store.publish(gpus(2));
    NodeLabelsPublisher p = publisher(sink());

    Eventually.await("the NodeFeature", () -> object() != null);
    JsonNode object = object();
    assertThat(object.path("apiVersion").asText()).isEqualTo("nfd.k8s-sigs.io/v1alpha1");
    assertThat(object.path("kind").asText()).isEqualTo("NodeFeature");
    assertThat(
            object
                .path("metadata")
                .path("labels")
                .path("nfd.node.kubernetes.io/node-name")
                .asText())
        .isEqualTo("node-a");
    JsonNode labels = object.path("spec").path("labels");
    assertThat(labels.path("acceld.io/nvidia.com_gpu.count").asText()).isEqualTo("2");
    assertThat(labels.path("acceld.io/accelerator").asText()).isEqualTo("true");
    assertThat(p.file()).isEmpty();
    Eventually.await("one write counted", () -> p.apiWrites() == 1);

    // A GPU goes: the object follows, updated in place (one more write), never duplicated.
    store.publish(gpus(1));
    Eventually.await(
        "the count follows",
        () ->
            object()
                .path("spec")
                .path("labels")
                .path("acceld.io/nvidia.com_gpu.count")
                .asText()
                .equals("1"));
    assertThat(api.nodeFeatures()).containsOnlyKeys(KEY);
    Eventually.await("two writes counted", () -> p.apiWrites() == 2);
  }

  @Test
  void aRestartWithTheSameLabelsWritesNothingAndADeletedObjectComesBackOnTheNextChange()
      throws Exception {
    store.publish(gpus(2));
    NodeLabelsPublisher first = publisher(sink());
    Eventually.await("the NodeFeature", () -> first.apiWrites() == 1);
    first.close();

    // The agent restarts on the same hardware: one read, no write.
    NodeLabelsPublisher second = publisher(sink());
    Eventually.await("the first turn", () -> second.turns() >= 1);
    assertThat(second.apiWrites()).isZero();

    api.deleteNodeFeatures();
    store.publish(gpus(3));
    Eventually.await("recreated", () -> object() != null);
    assertThat(object().path("spec").path("labels").path("acceld.io/nvidia.com_gpu.count").asText())
        .isEqualTo("3");
  }

  @Test
  void anApiServerThatIsDownCostsRetriesNotTheAgentAndTheLabelsArriveOnceItIsBack()
      throws Exception {
    store.publish(gpus(2));
    api.failWith(500);
    NodeLabelsPublisher p = publisher(sink());
    Eventually.await("a failed attempt", () -> api.requests() >= 1);
    assertThat(p.apiWrites()).isZero();
    api.failWith(0);
    store.publish(gpus(1)); // the next change (or the retry) writes
    Eventually.await("written once the server answers", () -> object() != null);
  }

  @Test
  void withoutANamespaceTheSettingIsRefusedNamingWhatIsMissing() throws Exception {
    Path kubeconfig = api.kubeconfig(dir, null);
    assertThatThrownBy(() -> NodeFeatureSink.connect(kubeconfig.toString(), Map.of(), "node-a"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("POD_NAMESPACE");
  }
}
