package io.acceld.mesos;

import io.acceld.mesos.containment.FenceDescription;
import io.acceld.util.JsonSyntaxException;
import io.acceld.util.JsonTrees;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /state} with each container's containment added as {@code "containers"}: its cgroup
 * path(s), the user it runs as and its limits, so an operator sees what fences a task without
 * reading cgroupfs.
 */
final class ContainmentState {
  private ContainmentState() {}

  @SuppressWarnings("unchecked")
  static String render(String masterState, List<FenceDescription> fences) {
    Map<String, Object> state;
    try {
      state = (Map<String, Object>) JsonTrees.parse(masterState.getBytes(StandardCharsets.UTF_8));
    } catch (JsonSyntaxException e) {
      throw new IllegalStateException("the master's own /state is not JSON", e);
    }
    List<Object> containers = new ArrayList<>();
    for (FenceDescription f : fences) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("container_id", f.containerId());
      c.put("cgroup_version", f.cgroupVersion());
      c.put("cgroups", f.cgroups());
      f.user()
          .ifPresent(
              u -> {
                Map<String, Object> user = new LinkedHashMap<>();
                user.put("name", u.name());
                user.put("uid", u.uid());
                user.put("gid", u.gid());
                c.put("user", user);
              });
      Map<String, Object> limits = new LinkedHashMap<>();
      limits.put("memory_bytes", f.limits().memoryBytes());
      limits.put("cpus", f.limits().cpus());
      limits.put("cpu_quota", f.limits().cpuQuota());
      c.put("limits", limits);
      c.put("isolation", f.isolation());
      c.put("denied_devices", f.deniedDevices());
      c.put("allowed_devices", f.allowedDevices());
      containers.add(c);
    }
    state.put("containers", containers);
    return new String(JsonTrees.render(state, false), StandardCharsets.UTF_8);
  }
}
