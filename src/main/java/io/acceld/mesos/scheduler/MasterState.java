package io.acceld.mesos.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.inventory.Device;
import io.acceld.ledger.Availability;
import io.acceld.mesos.tasks.TaskView;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.MasterInfo;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code GET /state} document: the agent, its total and free resources, the frameworks, and
 * every task with its state and the devices it holds. Field names follow Mesos's own {@code /state}
 * where it has them ({@code id}, {@code hostname}, {@code frameworks}, {@code tasks}, {@code
 * completed_tasks}); {@code devices} is ours.
 */
final class MasterState {
  private static final ObjectMapper JSON = new ObjectMapper();

  private MasterState() {}

  static String render(
      MasterInfo master,
      AgentInfo agent,
      Quantities nodeScalars,
      Quantities freeScalars,
      Availability availability,
      Collection<Framework> frameworks,
      List<OutstandingOffer> offers,
      List<TaskView> tasks,
      List<TaskView> completed) {
    ObjectNode root = JSON.createObjectNode();
    root.put("id", master.getId());
    root.put("version", MesosMaster.MESOS_VERSION);
    root.put("hostname", master.getHostname());
    ObjectNode a = root.putObject("agent");
    a.put("id", agent.getId().getValue());
    a.put("hostname", agent.getHostname());
    a.put("port", agent.getPort());
    Map<String, Integer> totalDevices = new TreeMap<>();
    Map<String, Integer> freeDevices = new TreeMap<>();
    for (Device d : availability.inventory().devices()) {
      String name = DeviceResources.nameOf(d);
      totalDevices.merge(name, 1, Integer::sum);
      freeDevices.merge(name, availability.isAvailable(d) ? 1 : 0, Integer::sum);
    }
    resources(a.putObject("resources"), nodeScalars, totalDevices);
    resources(a.putObject("free_resources"), freeScalars, freeDevices);

    Map<String, ArrayNode> tasksByFramework = new LinkedHashMap<>();
    Map<String, ArrayNode> completedByFramework = new LinkedHashMap<>();
    ArrayNode fws = root.putArray("frameworks");
    Map<String, ObjectNode> byId = new LinkedHashMap<>();
    for (Framework fw : frameworks) {
      ObjectNode f = fws.addObject();
      byId.put(fw.name(), f);
      f.put("id", fw.name());
      f.put("name", fw.info.getName());
      f.put("connected", fw.isConnected());
      ArrayNode roles = f.putArray("roles");
      fw.roles().forEach(roles::add);
      ArrayNode caps = f.putArray("capabilities");
      for (FrameworkInfo.Capability c : fw.info.getCapabilitiesList()) {
        caps.add(c.getType().name());
      }
      ArrayNode offered = f.putArray("offers");
      offers.stream().filter(o -> o.framework().equals(fw.id)).forEach(o -> offered.add(o.id()));
    }
    for (TaskView t : tasks) {
      ObjectNode f = byId.computeIfAbsent(t.frameworkId(), id -> orphan(fws, id));
      arrayOf(tasksByFramework, f, "tasks").add(task(t));
    }
    for (TaskView t : completed) {
      ObjectNode f = byId.computeIfAbsent(t.frameworkId(), id -> orphan(fws, id));
      arrayOf(completedByFramework, f, "completed_tasks").add(task(t));
    }
    byId.values()
        .forEach(
            f -> {
              if (!f.has("tasks")) {
                f.putArray("tasks");
              }
              if (!f.has("completed_tasks")) {
                f.putArray("completed_tasks");
              }
            });
    try {
      return JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of plain nodes always serialises", e);
    }
  }

  /** A framework the book has tasks of but the master does not know (not re-subscribed yet). */
  private static ObjectNode orphan(ArrayNode fws, String id) {
    ObjectNode f = fws.addObject();
    f.put("id", id);
    f.put("connected", false);
    return f;
  }

  private static ArrayNode arrayOf(Map<String, ArrayNode> cache, ObjectNode f, String field) {
    return cache.computeIfAbsent(f.get("id").asText() + "/" + field, k -> f.putArray(field));
  }

  private static ObjectNode task(TaskView t) {
    ObjectNode n = JSON.createObjectNode();
    n.put("id", t.taskId());
    n.put("name", t.task().getName());
    n.put("framework_id", t.frameworkId());
    n.put("executor_id", t.executor().getValue());
    n.put("state", t.state().name());
    ArrayNode devices = n.putArray("devices");
    t.deviceIds().forEach(devices::add);
    resources(
        n.putObject("resources"), Quantities.ofScalars(t.task().getResourcesList()), Map.of());
    return n;
  }

  private static void resources(ObjectNode n, Quantities scalars, Map<String, Integer> devices) {
    scalars.amounts().forEach(n::put);
    devices.forEach(n::put);
  }
}
