package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigLoader;
import io.acceld.config.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.StreamSupport;

/**
 * What a node needs from the agent's DaemonSet, checked the same way on the kustomize manifests and
 * on every Helm render: the kubelet's directories, read-only host trees, the downward-API node
 * name, probes on the metrics port, no capabilities, and a config the agent itself accepts.
 */
final class DaemonSetChecks {
  private DaemonSetChecks() {}

  static void assertDeployable(JsonNode daemonSet, JsonNode configMap, Path scratch)
      throws Exception {
    JsonNode pod = daemonSet.at("/spec/template/spec");
    assertThat(pod.path("priorityClassName").asText()).isEqualTo("system-node-critical");
    JsonNode selector = daemonSet.at("/spec/selector/matchLabels");
    assertThat(names(selector)).isNotEmpty();
    for (String label : names(selector)) {
      assertThat(daemonSet.at("/spec/template/metadata/labels").path(label))
          .as("pod label %s matches the selector", label)
          .isEqualTo(selector.get(label));
    }
    assertThat(pod.path("tolerations").findValuesAsText("key")).contains("nvidia.com/gpu");

    JsonNode container = pod.path("containers").get(0);
    Map<String, JsonNode> volumes = byName(pod.path("volumes"));
    Map<String, JsonNode> mounts = new HashMap<>();
    container.path("volumeMounts").forEach(m -> mounts.put(m.path("mountPath").asText(), m));
    mounts
        .values()
        .forEach(
            m -> assertThat(volumes).as("volume for %s", m).containsKey(m.path("name").asText()));

    AgentConfig config = agentConfig(configMap, scratch);

    // The kubelet's directories, read-write, at the paths the agent's settings name.
    assertHostDirectory(
        mounts, volumes, config.get(Settings.DEVICE_PLUGIN_DIR), false, "Directory");
    assertHostDirectory(
        mounts, volumes, config.get(Settings.PLUGINS_REGISTRY_DIR), false, "Directory");
    assertHostDirectory(
        mounts, volumes, config.get(Settings.POD_RESOURCES_SOCKET).getParent(), false, "Directory");
    assertHostDirectory(mounts, volumes, config.get(Settings.CDI_DIR), false, "DirectoryOrCreate");
    assertHostDirectory(mounts, volumes, Path.of("/var/lib/acceld"), false, "DirectoryOrCreate");
    // NFD's features directory, read-write, where the agent writes the node's labels.
    config
        .get(Settings.NODE_LABELS_FILE)
        .ifPresent(
            file ->
                assertHostDirectory(mounts, volumes, file.getParent(), false, "DirectoryOrCreate"));
    // The host's trees the agent only reads.
    assertHostDirectory(mounts, volumes, config.get(Settings.SYSFS_ROOT), true, "Directory");
    assertHostDirectory(mounts, volumes, config.get(Settings.DEV_ROOT), true, "Directory");
    String nvml = config.get(Settings.NVML_LIBRARY);
    if (nvml.startsWith("/")) {
      assertHostDirectory(mounts, volumes, Path.of(nvml).getParent(), true, "Directory");
    }
    assertThat(mounts).containsKey("/tmp");
    assertThat(volumes.get(mounts.get("/tmp").path("name").asText()).has("emptyDir")).isTrue();

    // Without DRA the agent calls no Kubernetes API: no token. With DRA (--dra-driver in the
    // config or the arguments) it needs its ServiceAccount's token and the kubelet's plugins dir.
    String draDriver = config.get(Settings.DRA_DRIVER);
    for (JsonNode arg : container.path("args")) {
      if (arg.asText().startsWith("--dra-driver=")) {
        draDriver = arg.asText().substring("--dra-driver=".length());
      }
    }
    if (draDriver.isEmpty()) {
      assertThat(pod.path("automountServiceAccountToken").asBoolean(true)).isFalse();
    } else {
      assertThat(pod.path("automountServiceAccountToken").asBoolean(false)).isTrue();
      assertThat(pod.path("serviceAccountName").asText()).isNotEmpty();
      assertHostDirectory(
          mounts, volumes, config.get(Settings.KUBELET_PLUGINS_DIR), false, "DirectoryOrCreate");
    }

    JsonNode env = container.path("env");
    assertThat(byName(env).get("NODE_NAME").at("/valueFrom/fieldRef/fieldPath").asText())
        .isEqualTo("spec.nodeName");

    int metricsPort = config.get(Settings.METRICS_ADDRESS).port();
    JsonNode port = byName(container.path("ports")).get("metrics");
    assertThat(port.path("containerPort").asInt()).isEqualTo(metricsPort);
    assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
    assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/readyz");
    assertThat(container.at("/livenessProbe/httpGet/port").asText())
        .isIn("metrics", "" + metricsPort);
    assertThat(container.at("/readinessProbe/httpGet/port").asText())
        .isIn("metrics", "" + metricsPort);

    // Under TLS the agent answers nothing on plain HTTP: the probes must speak HTTPS, or the
    // kubelet restarts a healthy agent for ever.
    String scheme = config.get(Settings.METRICS_TLS_CERT).isBlank() ? "HTTP" : "HTTPS";
    for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
      JsonNode httpGet = container.path(probe).path("httpGet");
      if (!httpGet.isMissingNode()) {
        assertThat(httpGet.path("scheme").asText("HTTP")).as("%s scheme", probe).isEqualTo(scheme);
      }
    }

    JsonNode security = container.path("securityContext");
    assertThat(security.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
    assertThat(security.path("readOnlyRootFilesystem").asBoolean(false)).isTrue();
    assertThat(
            StreamSupport.stream(security.at("/capabilities/drop").spliterator(), false)
                .map(JsonNode::asText))
        .containsExactly("ALL");
    assertThat(security.has("privileged") && security.get("privileged").asBoolean()).isFalse();

    assertThat(container.at("/resources/requests/memory").asText()).isNotEmpty();
    assertThat(container.at("/resources/limits/memory").asText()).isNotEmpty();
    assertThat(configMap.at("/metadata/name").asText())
        .isEqualTo(
            volumes
                .get(mounts.get("/etc/acceld").path("name").asText())
                .at("/configMap/name")
                .asText());
  }

  /** The config.yaml the ConfigMap carries, loaded by the agent's own loader: it must accept it. */
  static AgentConfig agentConfig(JsonNode configMap, Path scratch) throws Exception {
    Path file = scratch.resolve("config.yaml");
    Files.writeString(file, configMap.at("/data/config.yaml").asText());
    return ConfigLoader.load(Map.of(), Map.of(), Optional.of(file));
  }

  private static void assertHostDirectory(
      Map<String, JsonNode> mounts,
      Map<String, JsonNode> volumes,
      Path inContainer,
      boolean readOnly,
      String type) {
    JsonNode mount = mounts.get(inContainer.toString());
    assertThat(mount)
        .as("a volume mounted at %s (mounts: %s)", inContainer, mounts.keySet())
        .isNotNull();
    assertThat(mount.path("readOnly").asBoolean(false))
        .as("%s read-only", inContainer)
        .isEqualTo(readOnly);
    JsonNode hostPath = volumes.get(mount.path("name").asText()).path("hostPath");
    assertThat(hostPath.path("path").asText()).as("host path for %s", inContainer).isNotEmpty();
    assertThat(hostPath.path("type").asText())
        .as("hostPath type for %s", inContainer)
        .isEqualTo(type);
  }

  private static Map<String, JsonNode> byName(JsonNode list) {
    Map<String, JsonNode> named = new HashMap<>();
    list.forEach(item -> named.put(item.path("name").asText(), item));
    return named;
  }

  private static List<String> names(JsonNode object) {
    return StreamSupport.stream(((Iterable<String>) object::fieldNames).spliterator(), false)
        .toList();
  }
}
