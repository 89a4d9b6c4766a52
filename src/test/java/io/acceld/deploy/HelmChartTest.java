package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.acceld.config.AgentConfig;
import io.acceld.config.RegistrationMode;
import io.acceld.config.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chart through real Helm (helm-java embeds Helm's Go library): lint, render, validate. */
class HelmChartTest {
  private static KubernetesSchemas schemas;

  @TempDir Path dir;

  @BeforeAll
  static void setUp() throws Exception {
    if (Boolean.getBoolean("acceld.regenerate")) {
      HelmValues.regenerate();
    }
    schemas = KubernetesSchemas.load();
  }

  private static Helm chart() {
    return new Helm(HelmValues.CHART);
  }

  private void assertValid(List<JsonNode> objects) {
    for (JsonNode object : objects) {
      assertThat(schemas.validate(object))
          .as("%s %s", object.path("kind").asText(), object.at("/metadata/name").asText())
          .isEmpty();
    }
  }

  @Test
  void valuesHaveEverySettingOfTheTableAndNothingElse() throws Exception {
    String values = Files.readString(HelmValues.VALUES);
    assertThat(values)
        .as("values.yaml drifted from Settings.java; regenerate with -Dacceld.regenerate=true")
        .isEqualTo(HelmValues.regeneratedValues(values));
    String schema = Files.readString(HelmValues.SCHEMA);
    ObjectMapper json = new ObjectMapper();
    assertThat(json.readTree(schema))
        .as(
            "values.schema.json drifted from Settings.java; regenerate with -Dacceld.regenerate=true")
        .isEqualTo(json.readTree(HelmValues.regeneratedSchema(schema)));
  }

  @Test
  void helmLintIsClean() {
    LintResult lint = chart().lint().strict().call();
    assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
  }

  @Test
  void theDefaultRenderIsValidAndDeployable() throws Exception {
    List<JsonNode> objects =
        Manifests.parse(chart().template().withName("acceld").withNamespace("kube-system").call());

    assertThat(objects)
        .extracting(o -> o.path("kind").asText())
        .containsExactlyInAnyOrder("ConfigMap", "DaemonSet", "Service");
    assertValid(objects);
    DaemonSetChecks.assertDeployable(
        Manifests.only(objects, "DaemonSet"), Manifests.only(objects, "ConfigMap"), dir);
  }

  @Test
  void aNonDefaultRenderIsValidAndCarriesTheSettings() throws Exception {
    Path values = dir.resolve("values.yaml");
    Files.writeString(
        values,
        """
        image: {repository: registry.example/acceld, tag: "0.2.0", pullPolicy: Always}
        serviceMonitor: {enabled: true, interval: 15s, labels: {release: prometheus}}
        hostPaths: {driverLib: /run/nvidia/driver/usr/lib/x86_64-linux-gnu}
        nodeSelector: {node-role.example/gpu: "yes"}
        rules:
          - {vendor: "0x1d0f", class: "0x08", driver: neuron, resource: aws.amazon.com/neuron}
        sharing:
          nvidia.com/gpu: {replicas: 4, rename-shared: true}
        config:
          metrics-address: 0.0.0.0:9500
          kubelet-registration: plugin-watcher
          cdi: true
          log-level: debug
          health-quarantine: 10m
          xid-ignore-add: "48,63"
        """);
    List<JsonNode> objects =
        Manifests.parse(
            chart()
                .template()
                .withName("gpu")
                .withNamespace("accel")
                .withValuesFile(values)
                .call());

    assertThat(objects)
        .extracting(o -> o.path("kind").asText())
        .containsExactlyInAnyOrder("ConfigMap", "DaemonSet", "Service", "ServiceMonitor");
    assertValid(objects);
    JsonNode daemonSet = Manifests.only(objects, "DaemonSet");
    JsonNode configMap = Manifests.only(objects, "ConfigMap");
    DaemonSetChecks.assertDeployable(daemonSet, configMap, dir);

    AgentConfig config = DaemonSetChecks.agentConfig(configMap, dir);
    assertThat(config.get(Settings.METRICS_ADDRESS).port()).isEqualTo(9500);
    assertThat(config.get(Settings.KUBELET_REGISTRATION))
        .isEqualTo(RegistrationMode.PLUGIN_WATCHER);
    assertThat(config.get(Settings.CDI)).isTrue();
    assertThat(config.get(Settings.XID_IGNORE_ADD)).containsExactly(48, 63);
    assertThat(config.rules()).hasSize(1);
    assertThat(config.sharing("nvidia.com/gpu").replicas()).isEqualTo(4);
    assertThat(daemonSet.at("/spec/template/spec/containers/0/image").asText())
        .isEqualTo("registry.example/acceld:0.2.0");
    assertThat(daemonSet.at("/metadata/namespace").asText()).isEqualTo("accel");
    assertThat(Manifests.only(objects, "ServiceMonitor").at("/metadata/labels/release").asText())
        .isEqualTo("prometheus");
  }

  @Test
  void secretsForTlsAndATokenSwitchProbesAndScrapesToHttpsWithTheToken() throws Exception {
    Path values = dir.resolve("values.yaml");
    Files.writeString(
        values,
        """
        serviceMonitor: {enabled: true}
        metricsTls: {secretName: acceld-metrics-tls}
        metricsAuth: {secretName: acceld-metrics-token, key: bearer}
        config:
          metrics-auth: bearer:/ignored/when/the/chart/mounts/a/secret
        """);
    List<JsonNode> objects =
        Manifests.parse(
            chart()
                .template()
                .withName("acceld")
                .withNamespace("kube-system")
                .withValuesFile(values)
                .call());
    assertValid(objects);
    JsonNode daemonSet = Manifests.only(objects, "DaemonSet");
    JsonNode configMap = Manifests.only(objects, "ConfigMap");
    DaemonSetChecks.assertDeployable(daemonSet, configMap, dir);

    AgentConfig config = DaemonSetChecks.agentConfig(configMap, dir);
    assertThat(config.get(Settings.METRICS_TLS_CERT))
        .isEqualTo("/run/secrets/acceld/metrics-tls/tls.crt");
    assertThat(config.get(Settings.METRICS_TLS_KEY))
        .isEqualTo("/run/secrets/acceld/metrics-tls/tls.key");
    assertThat(config.get(Settings.METRICS_AUTH))
        .isEqualTo("bearer:/run/secrets/acceld/metrics-auth/bearer");
    JsonNode container = daemonSet.at("/spec/template/spec/containers/0");
    assertThat(container.at("/livenessProbe/httpGet/scheme").asText()).isEqualTo("HTTPS");
    assertThat(container.findValuesAsText("mountPath"))
        .contains("/run/secrets/acceld/metrics-tls", "/run/secrets/acceld/metrics-auth");
    JsonNode volumes = daemonSet.at("/spec/template/spec/volumes");
    assertThat(volumes.findValuesAsText("secretName"))
        .containsExactlyInAnyOrder("acceld-metrics-tls", "acceld-metrics-token");
    assertThat(volumes.findValues("defaultMode")).allMatch(mode -> mode.asInt() == 0400);

    JsonNode endpoint = Manifests.only(objects, "ServiceMonitor").at("/spec/endpoints/0");
    assertThat(endpoint.path("scheme").asText()).isEqualTo("https");
    assertThat(endpoint.at("/tlsConfig/ca/secret/name").asText()).isEqualTo("acceld-metrics-tls");
    assertThat(endpoint.at("/tlsConfig/serverName").asText()).isEqualTo("acceld.kube-system.svc");
    assertThat(endpoint.at("/authorization/credentials/name").asText())
        .isEqualTo("acceld-metrics-token");
    assertThat(endpoint.at("/authorization/credentials/key").asText()).isEqualTo("bearer");
  }

  @Test
  void nodeLabelsMountTheFeaturesDirectoryAndOffMountNothing() throws Exception {
    List<JsonNode> objects =
        Manifests.parse(chart().template().withName("acceld").withNamespace("kube-system").call());
    JsonNode daemonSet = Manifests.only(objects, "DaemonSet");
    assertThat(daemonSet.at("/spec/template/spec/containers/0").findValuesAsText("mountPath"))
        .contains("/etc/kubernetes/node-feature-discovery/features.d");
    assertThat(daemonSet.at("/spec/template/spec/volumes").findValuesAsText("path"))
        .contains("/etc/kubernetes/node-feature-discovery/features.d");

    List<JsonNode> off =
        Manifests.parse(
            chart()
                .template()
                .withName("acceld")
                .withNamespace("kube-system")
                .set("config.node-labels-file", "")
                .call());
    assertValid(off);
    JsonNode offDaemonSet = Manifests.only(off, "DaemonSet");
    DaemonSetChecks.assertDeployable(offDaemonSet, Manifests.only(off, "ConfigMap"), dir);
    assertThat(offDaemonSet.at("/spec/template/spec/volumes").findValuesAsText("name"))
        .doesNotContain("node-features");
  }

  @Test
  void aCertificateNamedInConfigAloneAlsoSwitchesTheProbesToHttps() throws Exception {
    List<JsonNode> objects =
        Manifests.parse(
            chart()
                .template()
                .withName("acceld")
                .set("config.metrics-tls-cert", "/etc/tls/tls.crt")
                .set("config.metrics-tls-key", "/etc/tls/tls.key")
                .call());
    DaemonSetChecks.assertDeployable(
        Manifests.only(objects, "DaemonSet"), Manifests.only(objects, "ConfigMap"), dir);
    assertThat(
            Manifests.only(objects, "DaemonSet")
                .at("/spec/template/spec/containers/0/readinessProbe/httpGet/scheme")
                .asText())
        .isEqualTo("HTTPS");
  }

  @Test
  void draAddsRbacDeviceClassesTheTokenAndThePluginsMount() throws Exception {
    Path values = dir.resolve("values.yaml");
    Files.writeString(
        values,
        """
        dra:
          enabled: true
          driver: gpu.example.com
          deviceClasses: {amd: ""}
          pluginsDir: /var/lib/k/plugins
        config:
          kubelet-plugins-dir: /var/lib/k/plugins
        """);
    List<JsonNode> objects =
        Manifests.parse(
            chart()
                .template()
                .withName("acceld")
                .withNamespace("gpus")
                .withValuesFile(values)
                .call());
    assertThat(objects)
        .extracting(o -> o.path("kind").asText())
        .containsExactlyInAnyOrder(
            "ConfigMap",
            "DaemonSet",
            "Service",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "DeviceClass",
            "DeviceClass");
    // No schema for RBAC or DeviceClass in the model jars: DraManifests checks those.
    assertValid(
        objects.stream()
            .filter(
                o ->
                    List.of("ConfigMap", "DaemonSet", "Service", "ServiceAccount")
                        .contains(o.path("kind").asText()))
            .toList());
    JsonNode daemonSet = Manifests.only(objects, "DaemonSet");
    JsonNode configMap = Manifests.only(objects, "ConfigMap");
    DaemonSetChecks.assertDeployable(daemonSet, configMap, dir);
    assertThat(DaemonSetChecks.agentConfig(configMap, dir).get(Settings.DRA_DRIVER))
        .isEqualTo("gpu.example.com");
    DraManifests.assertRbac(objects, daemonSet, "gpus");
    assertThat(DraManifests.deviceClasses(objects, "gpu.example.com"))
        .containsOnlyKeys("gpu.acceld.io", "mig.acceld.io")
        .hasEntrySatisfying("gpu.acceld.io", cel -> assertThat(cel).contains(".vendor == 'nvidia'"))
        .hasEntrySatisfying("mig.acceld.io", cel -> assertThat(cel).contains(".type == 'mig'"));
  }

  @Test
  void nodeLabelsApiGetsAServiceAccountAndARoleForNodeFeaturesInItsNamespaceOnly()
      throws Exception {
    Path values = dir.resolve("values.yaml");
    Files.writeString(values, "config: {node-labels-api: true}\n");
    List<JsonNode> objects =
        Manifests.parse(
            chart()
                .template()
                .withName("acceld")
                .withNamespace("gpus")
                .withValuesFile(values)
                .call());
    assertThat(objects)
        .extracting(o -> o.path("kind").asText())
        .containsExactlyInAnyOrder(
            "ConfigMap", "DaemonSet", "Service", "ServiceAccount", "Role", "RoleBinding");
    JsonNode role = Manifests.only(objects, "Role");
    assertThat(role.path("metadata").path("namespace").asText()).isEqualTo("gpus");
    assertThat(role.path("rules")).hasSize(1);
    assertThat(role.path("rules").get(0).path("apiGroups").get(0).asText())
        .isEqualTo("nfd.k8s-sigs.io");
    assertThat(role.path("rules").get(0).path("resources").get(0).asText())
        .isEqualTo("nodefeatures");
    JsonNode pod = Manifests.only(objects, "DaemonSet").path("spec").path("template").path("spec");
    assertThat(pod.path("serviceAccountName").asText()).isEqualTo("acceld");
    assertThat(pod.path("containers").get(0).path("env").toString())
        .contains("POD_NAMESPACE")
        .contains("metadata.namespace");
  }

  @Test
  void draDriverWithoutDraEnabledIsRefused() throws Exception {
    Path values = dir.resolve("values.yaml");
    Files.writeString(values, "config: {dra-driver: gpu.acceld.io}\n");
    assertThatThrownBy(() -> chart().template().withName("a").withValuesFile(values).call())
        .hasMessageContaining("config.dra-driver needs dra.enabled=true");
  }

  @Test
  void theValuesSchemaRejectsAMisspelledSettingAndAWrongChoice() {
    assertThatThrownBy(() -> chart().template().set("config.sysfs-rot", "/x").call())
        .hasMessageContaining("sysfs-rot");
    assertThatThrownBy(() -> chart().template().set("config.log-level", "loud").call())
        .hasMessageContaining("log-level");
  }
}
