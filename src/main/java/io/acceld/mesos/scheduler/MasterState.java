package io.acceld.mesos.scheduler;

import io.acceld.inventory.Device;
import io.acceld.ledger.Availability;
import io.acceld.mesos.tasks.TaskView;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.MasterInfo;
import io.acceld.util.JsonTrees;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("id", master.getId());
    root.put("version", MesosMaster.MESOS_VERSION);
    root.put("hostname", master.getHostname());
    Map<String, Object> a = new LinkedHashMap<>();
    root.put("agent", a);
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
    a.put("resources", resources(nodeScalars, totalDevices));
    a.put("free_resources", resources(freeScalars, freeDevices));

    List<Object> fws = new ArrayList<>();
    root.put("frameworks", fws);
    Map<String, Map<String, Object>> byId = new LinkedHashMap<>();
    for (Framework fw : frameworks) {
      Map<String, Object> f = new LinkedHashMap<>();
      fws.add(f);
      byId.put(fw.name(), f);
      f.put("id", fw.name());
      f.put("name", fw.info.getName());
      f.put("connected", fw.isConnected());
      f.put("roles", List.copyOf(fw.roles()));
      List<Object> caps = new ArrayList<>();
      for (FrameworkInfo.Capability c : fw.info.getCapabilitiesList()) {
        caps.add(c.getType().name());
      }
      f.put("capabilities", caps);
      f.put(
          "offers",
          offers.stream().filter(o -> o.framework().equals(fw.id)).map(o -> o.id()).toList());
    }
    for (TaskView t : tasks) {
      listOf(byId.computeIfAbsent(t.frameworkId(), id -> orphan(fws, id)), "tasks").add(task(t));
    }
    for (TaskView t : completed) {
      listOf(byId.computeIfAbsent(t.frameworkId(), id -> orphan(fws, id)), "completed_tasks")
          .add(task(t));
    }
    byId.values()
        .forEach(
            f -> {
              listOf(f, "tasks");
              listOf(f, "completed_tasks");
            });
    return new String(JsonTrees.render(root, false), StandardCharsets.UTF_8);
  }

  /** A framework the book has tasks of but the master does not know (not re-subscribed yet). */
  private static Map<String, Object> orphan(List<Object> fws, String id) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("id", id);
    f.put("connected", false);
    fws.add(f);
    return f;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> listOf(Map<String, Object> f, String field) {
    return (List<Object>) f.computeIfAbsent(field, k -> new ArrayList<>());
  }

  private static Map<String, Object> task(TaskView t) {
    Map<String, Object> n = new LinkedHashMap<>();
    n.put("id", t.taskId());
    n.put("name", t.task().getName());
    n.put("framework_id", t.frameworkId());
    n.put("executor_id", t.executor().getValue());
    n.put("state", t.state().name());
    n.put("devices", List.copyOf(t.deviceIds()));
    n.put("resources", resources(Quantities.ofScalars(t.task().getResourcesList()), Map.of()));
    return n;
  }

  private static Map<String, Object> resources(Quantities scalars, Map<String, Integer> devices) {
    Map<String, Object> n = new LinkedHashMap<>(scalars.amounts());
    n.putAll(devices);
    return n;
  }
}
