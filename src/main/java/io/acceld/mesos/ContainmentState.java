package io.acceld.mesos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceld.mesos.containment.FenceDescription;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * {@code GET /state} with each container's containment added as {@code "containers"}: its cgroup
 * path(s), the user it runs as and its limits, so an operator sees what fences a task without
 * reading cgroupfs.
 */
final class ContainmentState {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ContainmentState() {}

  static String render(String masterState, List<FenceDescription> fences) {
    try {
      ObjectNode state = (ObjectNode) JSON.readTree(masterState);
      ArrayNode containers = state.putArray("containers");
      for (FenceDescription f : fences) {
        ObjectNode c = containers.addObject();
        c.put("container_id", f.containerId());
        c.put("cgroup_version", f.cgroupVersion());
        f.cgroups().forEach(c.putArray("cgroups")::add);
        f.user()
            .ifPresent(
                u ->
                    c.putObject("user")
                        .put("name", u.name())
                        .put("uid", u.uid())
                        .put("gid", u.gid()));
        ObjectNode limits = c.putObject("limits");
        limits.put("memory_bytes", f.limits().memoryBytes());
        limits.put("cpus", f.limits().cpus());
        limits.put("cpu_quota", f.limits().cpuQuota());
        f.isolation().forEach(c.putArray("isolation")::add);
        f.deniedDevices().forEach(c.putArray("denied_devices")::add);
      }
      return JSON.writeValueAsString(state);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
