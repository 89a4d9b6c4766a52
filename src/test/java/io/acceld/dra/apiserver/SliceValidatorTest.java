package io.acceld.dra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.inventory.Device;
import io.acceld.inventory.NodeInfo;
import io.acceld.testing.TestDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The API server's slice rules, each broken once. */
class SliceValidatorTest {
  static final NodeInfo NODE = new NodeInfo(Optional.of("580.95.05"), Optional.empty());

  static ObjectNode slice(int devices) {
    List<ObjectNode> list = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      list.add(SliceDevices.device("gpu-" + i, TestDevices.nvidia(i, 0), NODE));
    }
    list.add(SliceDevices.device("gpu-0-mig-1-0", TestDevices.mig(0, 1, "1g.10gb"), NODE));
    return new SlicePlanner("gpu.acceld.io", "node-a.example.com").slice(list, 1, 1, "uid");
  }

  static List<String> broken(Consumer<ObjectNode> change) {
    ObjectNode s = slice(2);
    change.accept(s);
    return SliceValidator.validate(s);
  }

  @Test
  void whatThePublisherWritesIsValid() {
    assertThat(SliceValidator.validate(slice(127))).isEmpty();
  }

  @Test
  void moreThan128DevicesAreRefused() {
    assertThat(SliceValidator.validate(slice(128)))
        .containsExactly("spec.devices: 129 devices, at most 128 allowed");
  }

  @Test
  void namesMustBeDnsLabelsAndUnique() {
    assertThat(broken(s -> ((ObjectNode) s.at("/spec/devices/0")).put("name", "GPU_0")))
        .singleElement()
        .asString()
        .contains("must be a DNS label");
    assertThat(broken(s -> ((ObjectNode) s.at("/spec/devices/0")).put("name", "gpu-1")))
        .singleElement()
        .asString()
        .contains("duplicate");
    assertThat(broken(s -> ((ObjectNode) s.at("/spec/devices/0")).put("name", "a".repeat(64))))
        .singleElement()
        .asString()
        .contains("must be a DNS label");
  }

  @Test
  void theDriverPoolAndNodeAreChecked() {
    assertThat(broken(s -> s.with("spec").put("driver", "Gpu.Example")))
        .singleElement()
        .asString()
        .contains("spec.driver");
    assertThat(broken(s -> s.with("spec").put("driver", "a".repeat(64) + ".io")))
        .singleElement()
        .asString()
        .contains("spec.driver");
    assertThat(broken(s -> s.with("spec").with("pool").put("name", "a//b")))
        .singleElement()
        .asString()
        .contains("spec.pool.name");
    assertThat(broken(s -> s.with("spec").with("pool").put("resourceSliceCount", 0)))
        .containsExactly("spec.pool.resourceSliceCount: must be greater than zero");
    assertThat(broken(s -> s.with("spec").with("pool").put("generation", -1)))
        .containsExactly("spec.pool.generation: must be a non-negative integer");
    assertThat(broken(s -> s.with("spec").put("allNodes", true)))
        .singleElement()
        .asString()
        .contains("exactly one of nodeName");
    assertThat(broken(s -> s.with("spec").remove("nodeName")))
        .singleElement()
        .asString()
        .contains("exactly one of nodeName");
    assertThat(broken(s -> s.with("metadata").remove("generateName")))
        .containsExactly("metadata: name or generateName is required");
  }

  @Test
  void attributesAreCountedNamedAndTyped() {
    assertThat(
            broken(
                s -> {
                  ObjectNode attributes = (ObjectNode) s.at("/spec/devices/0/attributes");
                  for (int i = 0; i < 30; i++) {
                    attributes.putObject("extra" + i).put("int", i);
                  }
                }))
        .singleElement()
        .asString()
        .contains("at most 32 allowed");
    assertThat(
            broken(
                s ->
                    ((ObjectNode) s.at("/spec/devices/0/attributes"))
                        .putObject("1bad")
                        .put("int", 1)))
        .singleElement()
        .asString()
        .contains("C identifier");
    assertThat(
            broken(
                s ->
                    ((ObjectNode) s.at("/spec/devices/0/attributes"))
                        .putObject("Bad_Domain.io/x")
                        .put("int", 1)))
        .singleElement()
        .asString()
        .contains("domain");
    assertThat(
            broken(
                s ->
                    ((ObjectNode) s.at("/spec/devices/0/attributes"))
                        .putObject("x")
                        .put("string", "y".repeat(65))))
        .singleElement()
        .asString()
        .contains("at most 64 characters");
    assertThat(
            broken(
                s ->
                    ((ObjectNode) s.at("/spec/devices/0/attributes/driverVersion"))
                        .put("version", "580.95.05")))
        .singleElement()
        .asString()
        .contains("semantic version");
    assertThat(
            broken(
                s ->
                    ((ObjectNode) s.at("/spec/devices/0/attributes"))
                        .putObject("two")
                        .put("int", 1)
                        .put("bool", true)))
        .singleElement()
        .asString()
        .contains("exactly one of int, bool, string, version");
    assertThat(
            broken(
                s -> ((ObjectNode) s.at("/spec/devices/0/capacity/memory")).put("value", "80 GB")))
        .singleElement()
        .asString()
        .contains("not a quantity");
  }

  @Test
  void devicesAreDescribedWithinTheLimits() {
    Device longName =
        new Device(
            "0000:99:00.0",
            "example.com/npu",
            0x1e52,
            1,
            "N".repeat(80),
            "0000:99:00.0",
            -1,
            Optional.empty(),
            List.of(),
            io.acceld.inventory.Health.HEALTHY,
            Optional.empty(),
            Optional.empty());
    ObjectNode d = SliceDevices.device("pci1e52-0000-99-00-0", longName, NODE);
    assertThat(d.at("/attributes/productName/string").asText()).hasSize(64);
    assertThat(d.at("/attributes/type/string").asText()).isEqualTo("accelerator");
    assertThat(d.at("/attributes/vendor/string").asText()).isEqualTo("pci-1e52");
    assertThat(d.has("capacity")).isFalse();
    assertThat(d.at("/attributes").has("numaNode")).isFalse();
  }

  @Test
  void versionsAreSemanticAndQuantitiesCanonical() {
    assertThat(Semver.of("580.95.05")).contains("580.95.5");
    assertThat(Semver.of("9.0")).contains("9.0.0");
    assertThat(Semver.of("12")).contains("12.0.0");
    assertThat(Semver.of("535.104.05.1")).isEmpty();
    assertThat(Semver.of("v1.2")).isEmpty();
    assertThat(Quantities.bytes(80L << 30)).isEqualTo("80Gi");
    assertThat(Quantities.bytes(9856L << 20)).isEqualTo("9856Mi");
    assertThat(Quantities.bytes(5000)).isEqualTo("5k");
    assertThat(Quantities.bytes(1023)).isEqualTo("1023");
    assertThat(Quantities.bytes(0)).isEqualTo("0");
  }
}
