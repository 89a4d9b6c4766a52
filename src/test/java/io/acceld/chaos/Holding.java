package io.acceld.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One row of the operator's view of the ledger ({@code GET /devices}, what {@code acceld devices
 * --agent --json} prints): who holds a device.
 *
 * @param kind {@code free}, {@code kubelet_pending}, {@code kubelet_pod} or {@code mesos_task}
 * @param holder the pod, pending allocation or {@code framework/task}; empty when free
 */
record Holding(String id, String health, String kind, String holder) {
  boolean free() {
    return kind.equals("free");
  }

  boolean kubelet() {
    return kind.startsWith("kubelet_");
  }

  boolean mesos() {
    return kind.equals("mesos_task");
  }

  /** The rows of a {@code /devices} body, by device ID. */
  static Map<String, Holding> parse(String json) throws IOException {
    Map<String, Holding> rows = new LinkedHashMap<>();
    for (JsonNode d : new ObjectMapper().readTree(json)) {
      String id = d.get("id").asText();
      if (rows.containsKey(id)) {
        throw new IOException("device " + id + " is listed twice: " + json);
      }
      rows.put(
          id,
          new Holding(
              id,
              d.path("health").asText(),
              d.get("holderKind").asText(),
              d.path("holder").asText("")));
    }
    return rows;
  }
}
