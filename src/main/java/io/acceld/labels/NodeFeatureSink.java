package io.acceld.labels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.config.ConfigException;
import io.acceld.kube.ApiException;
import io.acceld.kube.KubeApi;
import io.acceld.kube.KubeConfig;
import io.acceld.kube.KubeConfigLoader;
import io.acceld.util.JsonNodes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The node's labels as a Node Feature Discovery {@code NodeFeature} object ({@code
 * nfd.k8s-sigs.io/v1alpha1}), the way GPU Feature Discovery publishes by default since 0.19: one
 * object for the node in the agent's namespace, labelled {@code
 * nfd.node.kubernetes.io/node-name=<node>}, whose {@code spec.labels} nfd-master puts on the Node.
 * No feature file and no nfd-worker on the node are needed.
 *
 * <p>Written only when the labels differ from what the API server holds: a change is a GET and at
 * most one write, a turn with nothing new writes nothing, and a conflicting write (someone else
 * changed the object) is read again and retried by the caller's next turn.
 */
public final class NodeFeatureSink implements AutoCloseable {
  static final String NODE_NAME_LABEL = "nfd.node.kubernetes.io/node-name";

  /** The deadline of one request to the API server. */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final KubeApi api;
  private final String namespace;
  private final String node;
  private final String name;

  /**
   * @param api the agent's API client
   * @param namespace where the object goes: the agent's own namespace (nfd-master reads every
   *     namespace's NodeFeatures)
   * @param node the node's name, as the Node object has it
   */
  public NodeFeatureSink(KubeApi api, String namespace, String node) {
    this.api = Objects.requireNonNull(api, "api");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.node = Objects.requireNonNull(node, "node");
    this.name = objectName(node);
  }

  /**
   * Connects to the API server as the DRA publisher does ({@code --kubeconfig}, else the first file
   * of {@code $KUBECONFIG}, else the pod's service account), for {@code node}'s object in the
   * agent's namespace: {@code $POD_NAMESPACE} (the downward API), else the service account's.
   *
   * @throws ConfigException naming what is missing
   */
  public static NodeFeatureSink connect(
      String kubeconfigFlag, Map<String, String> env, String node) {
    KubeConfig config =
        KubeConfigLoader.load(kubeconfigFlag, env, KubeConfigLoader.SERVICE_ACCOUNT_DIR);
    String namespace = env.getOrDefault("POD_NAMESPACE", "").strip();
    if (namespace.isEmpty()) {
      Path file = KubeConfigLoader.SERVICE_ACCOUNT_DIR.resolve("namespace");
      try {
        namespace = Files.readString(file, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new ConfigException(
            "--node-labels-api needs the agent's namespace: set POD_NAMESPACE (the chart passes"
                + " metadata.namespace), or run in a pod whose service account mounts "
                + file);
      }
    }
    return new NodeFeatureSink(new KubeApi(config, TIMEOUT), namespace, node);
  }

  @Override
  public void close() {
    api.close();
  }

  /** {@code acceld-features-for-<node>}, cut to a DNS subdomain's 253 characters. */
  static String objectName(String node) {
    String name = "acceld-features-for-" + node;
    return name.length() <= 253 ? name : name.substring(0, 253);
  }

  String describe() {
    return "NodeFeature " + namespace + "/" + name;
  }

  private String collection() {
    return "/apis/nfd.k8s-sigs.io/v1alpha1/namespaces/"
        + KubeApi.segment(namespace)
        + "/nodefeatures";
  }

  /**
   * Makes the object hold exactly {@code labels}.
   *
   * @return whether it wrote (created or updated) the object
   * @throws ApiException when the API server refused or could not be reached
   */
  boolean sync(Map<String, String> labels) throws ApiException {
    Optional<JsonNode> current = read();
    if (current.isPresent() && same(current.get(), labels)) {
      return false;
    }
    ObjectNode object = JsonNodes.object();
    object.put("apiVersion", "nfd.k8s-sigs.io/v1alpha1").put("kind", "NodeFeature");
    ObjectNode metadata = object.putObject("metadata");
    metadata.put("name", name).put("namespace", namespace);
    metadata.putObject("labels").put(NODE_NAME_LABEL, node);
    ObjectNode spec = object.putObject("spec");
    ObjectNode out = spec.putObject("labels");
    new TreeMap<>(labels).forEach(out::put);
    if (current.isEmpty()) {
      api.create(collection(), object);
    } else {
      metadata.put(
          "resourceVersion", current.get().path("metadata").path("resourceVersion").asText(""));
      api.update(collection() + "/" + KubeApi.segment(name), object);
    }
    return true;
  }

  private Optional<JsonNode> read() throws ApiException {
    try {
      return Optional.of(api.get(collection() + "/" + KubeApi.segment(name)));
    } catch (ApiException e) {
      if (e.kind() == ApiException.Kind.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private boolean same(JsonNode object, Map<String, String> labels) {
    if (!node.equals(object.path("metadata").path("labels").path(NODE_NAME_LABEL).asText(null))) {
      return false;
    }
    JsonNode stored = object.path("spec").path("labels");
    if (!stored.isObject() || stored.size() != labels.size()) {
      return false;
    }
    for (Map.Entry<String, String> e : labels.entrySet()) {
      if (!e.getValue().equals(stored.path(e.getKey()).asText(null))) {
        return false;
      }
    }
    return true;
  }
}
