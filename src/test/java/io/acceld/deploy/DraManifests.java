package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What DRA needs beside the DaemonSet, checked the same way on the kustomize overlay and on the
 * Helm render: RBAC for exactly the calls the agent makes, bound to the pod's ServiceAccount, and a
 * DeviceClass per kind of device selecting on the driver and the attributes the agent publishes.
 */
final class DraManifests {
  private DraManifests() {}

  static void assertRbac(List<JsonNode> objects, JsonNode daemonSet, String namespace) {
    JsonNode account = Manifests.only(objects, "ServiceAccount");
    assertThat(account.at("/metadata/name").asText())
        .isEqualTo(daemonSet.at("/spec/template/spec/serviceAccountName").asText());
    JsonNode role = Manifests.only(objects, "ClusterRole");
    Map<String, List<String>> verbs = new TreeMap<>();
    for (JsonNode rule : role.path("rules")) {
      for (JsonNode group : rule.path("apiGroups")) {
        for (JsonNode resource : rule.path("resources")) {
          List<String> list = new ArrayList<>();
          rule.path("verbs").forEach(v -> list.add(v.asText()));
          verbs.put(group.asText() + "/" + resource.asText(), list);
        }
      }
    }
    assertThat(verbs)
        .containsOnlyKeys(
            "resource.k8s.io/resourceslices", "resource.k8s.io/resourceclaims", "/nodes");
    assertThat(verbs.get("resource.k8s.io/resourceslices"))
        .containsExactlyInAnyOrder("create", "get", "list", "watch", "update", "patch", "delete");
    assertThat(verbs.get("resource.k8s.io/resourceclaims"))
        .containsExactlyInAnyOrder("get", "list", "watch");
    assertThat(verbs.get("/nodes")).containsExactly("get");
    JsonNode binding = Manifests.only(objects, "ClusterRoleBinding");
    assertThat(binding.at("/roleRef/kind").asText()).isEqualTo("ClusterRole");
    assertThat(binding.at("/roleRef/name").asText()).isEqualTo(role.at("/metadata/name").asText());
    assertThat(binding.at("/subjects/0/kind").asText()).isEqualTo("ServiceAccount");
    assertThat(binding.at("/subjects/0/name").asText())
        .isEqualTo(account.at("/metadata/name").asText());
    assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo(namespace);
  }

  /** The classes, by name, with their one CEL expression each. */
  static Map<String, String> deviceClasses(List<JsonNode> objects, String driver) {
    Map<String, String> classes = new TreeMap<>();
    for (JsonNode o : objects) {
      if (o.path("kind").asText().equals("DeviceClass")) {
        assertThat(o.path("apiVersion").asText()).isEqualTo("resource.k8s.io/v1");
        assertThat(o.at("/spec/selectors")).hasSize(1);
        String cel = o.at("/spec/selectors/0/cel/expression").asText();
        assertThat(cel).startsWith("device.driver == '" + driver + "' && ");
        assertThat(cel).contains("device.attributes['" + driver + "'].type == ");
        assertThat(cel.length()).isLessThan(10 * 1024);
        classes.put(o.at("/metadata/name").asText(), cel.replace('\n', ' '));
      }
    }
    return classes;
  }
}
