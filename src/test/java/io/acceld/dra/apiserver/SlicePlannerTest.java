package io.acceld.dra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.inventory.NodeInfo;
import io.acceld.testing.TestDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** From the devices wanted and the slices stored to the writes, without a server. */
class SlicePlannerTest {
  static final NodeInfo NODE = new NodeInfo(Optional.of("580.95.05"), Optional.empty());
  final SlicePlanner planner = new SlicePlanner("gpu.acceld.io", "node-a");

  static List<ObjectNode> devices(int n) {
    List<ObjectNode> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(SliceDevices.device("gpu-" + i, TestDevices.nvidia(i, 0), NODE));
    }
    return list;
  }

  /** What the server would hold after our writes: each slice named and versioned. */
  List<JsonNode> stored(List<ObjectNode> devices) {
    List<JsonNode> slices = new ArrayList<>();
    int n = 0;
    for (SlicePlanner.Write w : planner.plan(devices, List.of(), "uid")) {
      ObjectNode slice = ((SlicePlanner.Write.Create) w).slice().deepCopy();
      slice.with("metadata").put("name", "s" + n++).put("resourceVersion", "7");
      slices.add(KubeApiTestJson.roundTrip(slice));
    }
    return slices;
  }

  @Test
  void whatIsStoredAlreadyNeedsNoWrite() {
    assertThat(planner.plan(devices(3), stored(devices(3)), "uid")).isEmpty();
    assertThat(planner.plan(devices(200), stored(devices(200)), "uid")).isEmpty();
  }

  @Test
  void fieldsTheServerAddedAreNotChangesButAnAttributeWeDroppedIs() {
    List<JsonNode> stored = stored(devices(2));
    ((ObjectNode) stored.get(0).at("/spec/devices/0")).put("allowMultipleAllocations", false);
    assertThat(planner.plan(devices(2), stored, "uid")).isEmpty();
    ((ObjectNode) stored.get(0).at("/spec/devices/0/attributes")).putObject("stale").put("int", 1);
    assertThat(planner.plan(devices(2), stored, "uid"))
        .singleElement()
        .isInstanceOfSatisfying(
            SlicePlanner.Write.Update.class,
            u -> {
              assertThat(u.slice().at("/metadata/resourceVersion").asText()).isEqualTo("7");
              assertThat(u.slice().at("/spec/pool/generation").asLong()).isEqualTo(2);
              assertThat(u.slice().at("/spec/devices/0/attributes").has("stale")).isFalse();
            });
  }

  @Test
  void aChangeBumpsTheGenerationOfEverySliceAndShrinkingDeletes() {
    List<JsonNode> stored = stored(devices(130));
    List<SlicePlanner.Write> writes = planner.plan(devices(129), stored, "uid");
    assertThat(writes).hasSize(2).allMatch(w -> w instanceof SlicePlanner.Write.Update);
    writes.forEach(
        w -> {
          ObjectNode s = ((SlicePlanner.Write.Update) w).slice();
          assertThat(s.at("/spec/pool/generation").asLong()).isEqualTo(2);
          assertThat(s.at("/spec/pool/resourceSliceCount").asLong()).isEqualTo(2);
        });
    List<SlicePlanner.Write> shrink = planner.plan(devices(5), stored, "uid");
    assertThat(shrink).hasSize(2);
    assertThat(shrink.get(0)).isInstanceOf(SlicePlanner.Write.Update.class);
    assertThat(shrink.get(1)).isEqualTo(new SlicePlanner.Write.Delete("s1"));
  }

  @Test
  void slicesOfDifferentGenerationsOrAnotherOwnerAreRewritten() {
    List<JsonNode> stored = stored(devices(130));
    ((ObjectNode) stored.get(1).at("/spec/pool")).put("generation", 5);
    assertThat(planner.plan(devices(130), stored, "uid")).hasSize(2);
    assertThat(planner.plan(devices(130), stored(devices(130)), "another-node-uid")).hasSize(2);
  }

  @Test
  void noDevicesIsOneSliceWithoutADevicesList() {
    List<SlicePlanner.Write> writes = planner.plan(List.of(), List.of(), "uid");
    assertThat(writes).singleElement().isInstanceOf(SlicePlanner.Write.Create.class);
    ObjectNode slice = ((SlicePlanner.Write.Create) writes.get(0)).slice();
    assertThat(slice.at("/spec").has("devices")).isFalse();
    assertThat(slice.at("/spec/pool/resourceSliceCount").asInt()).isEqualTo(1);
    assertThat(SliceValidator.validate(slice)).isEmpty();
    assertThat(planner.plan(List.of(), stored(List.of()), "uid")).isEmpty();
  }

  /** JSON as it comes back from a server: parsed, so numbers are the parser's types. */
  static final class KubeApiTestJson {
    /** databind's own mapper, as a server's parser: the agent's codec is checked against it. */
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
        new com.fasterxml.jackson.databind.ObjectMapper();

    static JsonNode roundTrip(JsonNode tree) {
      try {
        return JSON.readTree(JSON.writeValueAsBytes(tree));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
