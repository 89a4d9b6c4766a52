package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kubectl apply -k deploy/kubernetes} (and {@code .../monitoring}) as the API would see it.
 */
class KubernetesManifestsTest {
  static final Path BASE = Path.of("deploy/kubernetes");
  static final Path MONITORING = BASE.resolve("monitoring");
  static final Path DRA = BASE.resolve("dra");
  private static KubernetesSchemas schemas;

  @TempDir Path dir;

  @BeforeAll
  static void loadSchemas() {
    schemas = KubernetesSchemas.load();
  }

  /** The objects a kustomization lists, in order: its resources, file by file. */
  static List<JsonNode> kustomization(Path root) {
    JsonNode k = Manifests.read(root.resolve("kustomization.yaml")).get(0);
    List<JsonNode> objects = new ArrayList<>();
    k.path("resources")
        .forEach(
            r -> {
              if (!r.asText().startsWith("../")) { // the base, read on its own
                objects.addAll(Manifests.read(root.resolve(r.asText())));
              }
            });
    return objects;
  }

  @Test
  void everyManifestFileIsInItsKustomizationAndEveryListedFileExists() throws Exception {
    for (Path root : List.of(BASE, MONITORING, DRA)) {
      JsonNode k = Manifests.read(root.resolve("kustomization.yaml")).get(0);
      List<String> listed = new ArrayList<>();
      k.path("resources").forEach(r -> listed.add(r.asText()));
      k.path("patches").forEach(p -> listed.add(p.path("path").asText()));
      listed.removeIf(r -> r.startsWith("../"));
      try (Stream<Path> files = Files.list(root)) {
        List<String> present =
            files
                .map(f -> f.getFileName().toString())
                .filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml"))
                .toList();
        assertThat(listed).as(root.toString()).containsExactlyInAnyOrderElementsOf(present);
      }
      assertThat(k.path("namespace").asText()).isEqualTo("kube-system");
    }
  }

  @Test
  void everyManifestValidatesAgainstTheKubernetesSchemas() {
    List<JsonNode> objects = new ArrayList<>(kustomization(BASE));
    objects.addAll(kustomization(MONITORING));
    assertThat(objects)
        .extracting(o -> o.path("kind").asText())
        .containsExactlyInAnyOrder("ConfigMap", "DaemonSet", "Service", "ServiceMonitor");
    for (JsonNode object : objects) {
      assertThat(schemas.validate(object)).as(object.path("kind").asText()).isEmpty();
    }
  }

  /**
   * {@code kubectl apply -k deploy/kubernetes/dra}: the base with its DaemonSet patched (a
   * strategic merge, done here by hand for the fields the patch sets), RBAC and DeviceClasses.
   */
  @Test
  void theDraOverlayAddsRbacDeviceClassesTheTokenAndThePluginsMount() throws Exception {
    List<JsonNode> objects = new ArrayList<>(kustomization(BASE));
    List<JsonNode> added = kustomization(DRA).stream().toList();
    objects.addAll(added);
    ObjectNode daemonSet = (ObjectNode) Manifests.only(objects, "DaemonSet");
    JsonNode patch =
        Manifests.read(DRA.resolve("daemonset-dra.yaml")).get(0).at("/spec/template/spec");
    ObjectNode pod = (ObjectNode) daemonSet.at("/spec/template/spec");
    pod.set("serviceAccountName", patch.get("serviceAccountName"));
    pod.set("automountServiceAccountToken", patch.get("automountServiceAccountToken"));
    ObjectNode container = (ObjectNode) pod.at("/containers/0");
    JsonNode patched = patch.at("/containers/0");
    assertThat(patched.path("name").asText()).isEqualTo(container.path("name").asText());
    container.set("args", patched.get("args"));
    container
        .withArray("volumeMounts")
        .addAll((com.fasterxml.jackson.databind.node.ArrayNode) patched.get("volumeMounts"));
    pod.withArray("volumes")
        .addAll((com.fasterxml.jackson.databind.node.ArrayNode) patch.get("volumes"));

    assertThat(schemas.validate(daemonSet)).isEmpty();
    assertThat(schemas.validate(Manifests.only(objects, "ServiceAccount"))).isEmpty();
    DaemonSetChecks.assertDeployable(daemonSet, Manifests.only(objects, "ConfigMap"), dir);
    DraManifests.assertRbac(objects, daemonSet, "kube-system");
    assertThat(DraManifests.deviceClasses(objects, "gpu.acceld.io"))
        .containsOnlyKeys("gpu.acceld.io", "amd-gpu.acceld.io", "mig.acceld.io");
    assertThat(container.path("args").toString()).contains("--dra-driver=gpu.acceld.io");
  }

  @Test
  void theDaemonSetGivesTheAgentWhatANodeNeeds() throws Exception {
    List<JsonNode> objects = kustomization(BASE);
    DaemonSetChecks.assertDeployable(
        Manifests.only(objects, "DaemonSet"), Manifests.only(objects, "ConfigMap"), dir);
  }

  @Test
  void theSchemasRejectWhatTheApiServerWouldReject() {
    JsonNode daemonSet = Manifests.only(kustomization(BASE), "DaemonSet");

    ObjectNode typo = daemonSet.deepCopy();
    ObjectNode container = (ObjectNode) typo.at("/spec/template/spec/containers/0");
    container.set("readinesProbe", container.remove("readinessProbe"));
    assertThat(schemas.validate(typo)).anyMatch(e -> e.contains("readinesProbe"));

    ObjectNode badPort = daemonSet.deepCopy();
    ((ObjectNode) badPort.at("/spec/template/spec/containers/0/ports/0")).put("containerPort", "x");
    assertThat(schemas.validate(badPort)).isNotEmpty();

    ObjectNode badQuantity = daemonSet.deepCopy();
    ((ObjectNode) badQuantity.at("/spec/template/spec/containers/0/resources/limits"))
        .put("memory", "256 megs");
    assertThat(schemas.validate(badQuantity)).isNotEmpty();

    ObjectNode wrongGroup = daemonSet.deepCopy();
    wrongGroup.put("apiVersion", "extensions/v1beta1");
    assertThat(schemas.validate(wrongGroup)).isNotEmpty();

    ObjectNode unknownKind = daemonSet.deepCopy();
    unknownKind.put("kind", "DaemonSett");
    assertThat(schemas.validate(unknownKind)).isNotEmpty();
  }
}
