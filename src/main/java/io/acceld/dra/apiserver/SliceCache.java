package io.acceld.dra.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceld.util.GuardedBy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * This node's slices of this driver as the API server last said, fed by the watch and by the
 * answers to our own writes: what the writer compares with instead of reading the server.
 */
final class SliceCache {
  @GuardedBy("this")
  private final Map<String, JsonNode> byName = new LinkedHashMap<>();

  @GuardedBy("this")
  private boolean synced;

  /** After a list: exactly these. */
  synchronized void replaceAll(List<JsonNode> slices) {
    byName.clear();
    slices.forEach(s -> byName.put(name(s), s));
    synced = true;
  }

  /**
   * A slice as created, updated or seen; an older version than the one held is ignored (our write's
   * answer can arrive before the watch's event of an earlier write).
   */
  synchronized void put(JsonNode slice) {
    JsonNode held = byName.get(name(slice));
    if (held != null && older(slice, held)) {
      return;
    }
    byName.put(name(slice), slice);
  }

  synchronized void remove(String name) {
    byName.remove(name);
  }

  /** Whether a list has filled it; before that the writer does not know what exists. */
  synchronized boolean synced() {
    return synced;
  }

  synchronized List<JsonNode> snapshot() {
    return List.copyOf(byName.values());
  }

  static String name(JsonNode slice) {
    return slice.path("metadata").path("name").asText("");
  }

  /** By resourceVersion when both are numbers (as etcd's are); otherwise never older. */
  private static boolean older(JsonNode a, JsonNode b) {
    try {
      return Long.parseLong(rv(a)) < Long.parseLong(rv(b));
    } catch (NumberFormatException e) {
      return false;
    }
  }

  static String rv(JsonNode object) {
    return object.path("metadata").path("resourceVersion").asText("");
  }
}
