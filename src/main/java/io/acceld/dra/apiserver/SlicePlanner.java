package io.acceld.dra.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.util.JsonNodes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Turns the devices to publish and the node's slices as the API server has them into the writes
 * that make the second match the first: one pool named after the node, at most {@value
 * SliceValidator#MAX_DEVICES} devices a slice, {@code resourceSliceCount} the number of slices, and
 * on any change a {@code generation} above every existing one in every slice of the pool (consumers
 * trust only the highest). Nothing to write when the slices already say what is wanted, whatever
 * their generation, so a restart or a watch resync writes nothing.
 */
final class SlicePlanner {
  /** The label that marks the slices this agent writes. */
  static final String MANAGED_BY = "app.kubernetes.io/managed-by";

  static final String MANAGER = "acceld";

  /** One write. */
  sealed interface Write {
    /** POST a new slice. */
    record Create(ObjectNode slice) implements Write {}

    /** PUT over {@code name} at its {@code resourceVersion} (in {@code slice}'s metadata). */
    record Update(String name, ObjectNode slice) implements Write {}

    /** DELETE {@code name}. */
    record Delete(String name) implements Write {}
  }

  private final String driver;
  private final String nodeName;

  SlicePlanner(String driver, String nodeName) {
    this.driver = Objects.requireNonNull(driver, "driver");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
  }

  /**
   * The writes from {@code existing} (this driver's slices on this node) to {@code devices}, owned
   * by the Node whose UID is {@code nodeUid}; empty when they already match.
   */
  List<Write> plan(List<ObjectNode> devices, List<JsonNode> existing, String nodeUid) {
    List<List<ObjectNode>> chunks = new ArrayList<>();
    for (int i = 0; i < devices.size(); i += SliceValidator.MAX_DEVICES) {
      chunks.add(devices.subList(i, Math.min(devices.size(), i + SliceValidator.MAX_DEVICES)));
    }
    if (chunks.isEmpty()) {
      chunks.add(List.of()); // an empty pool is published as one slice without devices
    }
    List<JsonNode> current = new ArrayList<>(existing);
    current.sort(Comparator.comparing(s -> s.path("metadata").path("name").asText("")));
    long highest = 0;
    for (JsonNode s : current) {
      highest = Math.max(highest, s.path("spec").path("pool").path("generation").asLong(0));
    }
    if (matches(chunks, current, nodeUid)) {
      return List.of();
    }
    long generation = highest + 1;
    List<Write> writes = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      ObjectNode slice = slice(chunks.get(i), generation, chunks.size(), nodeUid);
      if (i < current.size()) {
        JsonNode old = current.get(i).path("metadata");
        ObjectNode metadata = (ObjectNode) slice.get("metadata");
        metadata.remove("generateName");
        metadata.put("name", old.path("name").asText());
        metadata.put("resourceVersion", old.path("resourceVersion").asText());
        writes.add(new Write.Update(old.path("name").asText(), slice));
      } else {
        writes.add(new Write.Create(slice));
      }
    }
    for (int i = chunks.size(); i < current.size(); i++) {
      writes.add(new Write.Delete(current.get(i).path("metadata").path("name").asText()));
    }
    return writes;
  }

  private boolean matches(List<List<ObjectNode>> chunks, List<JsonNode> current, String nodeUid) {
    if (current.size() != chunks.size()) {
      return false;
    }
    long generation = current.get(0).path("spec").path("pool").path("generation").asLong(-1);
    for (int i = 0; i < chunks.size(); i++) {
      ObjectNode wanted = normalised(slice(chunks.get(i), generation, chunks.size(), nodeUid));
      JsonNode have = current.get(i);
      // An empty list is left out of what we write, so holds() alone would not see devices to
      // remove when none are wanted.
      if (have.path("spec").path("devices").size() != chunks.get(i).size()
          || !holds(have.path("spec"), wanted.get("spec"))
          || !holds(
              have.path("metadata").path("ownerReferences"),
              wanted.path("metadata").path("ownerReferences"))
          || !MANAGER.equals(have.path("metadata").path("labels").path(MANAGED_BY).asText())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code have} (as the server stores it) says what {@code want} (what we would write)
   * says: every field of {@code want} present and equal, lists element by element; fields the
   * server added (a default of a newer API version) do not count. A device's {@code attributes} and
   * {@code capacity} must be equal, so that an attribute we stopped publishing is removed.
   */
  static boolean holds(JsonNode have, JsonNode want) {
    if (want.isObject()) {
      if (!have.isObject()) {
        return false;
      }
      for (var it = want.fields(); it.hasNext(); ) {
        var field = it.next();
        JsonNode value = have.path(field.getKey());
        boolean exact = field.getKey().equals("attributes") || field.getKey().equals("capacity");
        if (exact ? !field.getValue().equals(value) : !holds(value, field.getValue())) {
          return false;
        }
      }
      return true;
    }
    if (want.isArray()) {
      if (!have.isArray() || have.size() != want.size()) {
        return false;
      }
      for (int i = 0; i < want.size(); i++) {
        if (!holds(have.get(i), want.get(i))) {
          return false;
        }
      }
      return true;
    }
    return want.equals(have);
  }

  /** A new slice of {@code devices}, as POST wants it. */
  ObjectNode slice(List<ObjectNode> devices, long generation, int count, String nodeUid) {
    ObjectNode slice = JsonNodes.object();
    slice.put("apiVersion", "resource.k8s.io/v1");
    slice.put("kind", "ResourceSlice");
    ObjectNode metadata = slice.putObject("metadata");
    metadata.put("generateName", generateName());
    metadata.putObject("labels").put(MANAGED_BY, MANAGER);
    ObjectNode owner = metadata.putArray("ownerReferences").addObject();
    owner.put("apiVersion", "v1");
    owner.put("kind", "Node");
    owner.put("name", nodeName);
    owner.put("uid", nodeUid);
    owner.put("controller", true);
    ObjectNode spec = slice.putObject("spec");
    spec.put("driver", driver);
    spec.put("nodeName", nodeName);
    ObjectNode pool = spec.putObject("pool");
    pool.put("name", nodeName);
    pool.put("generation", generation);
    pool.put("resourceSliceCount", count);
    if (!devices.isEmpty()) {
      // The server leaves an empty list out of what it stores (omitempty): so do we, or an empty
      // pool would never read back equal and be rewritten every second.
      spec.putArray("devices").addAll(devices);
    }
    return slice;
  }

  /** {@code <node>-<driver>-}, cut so that the server's five characters still fit. */
  private String generateName() {
    String prefix = nodeName + "-" + driver;
    if (prefix.length() > 200) {
      prefix = prefix.substring(0, 200).replaceAll("[-.]+$", "");
    }
    return prefix + "-";
  }

  /** The tree as it reads back from JSON, so equals compares values, not number classes. */
  private static ObjectNode normalised(ObjectNode tree) {
    try {
      return (ObjectNode) JsonNodes.parse(JsonNodes.render(tree));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
