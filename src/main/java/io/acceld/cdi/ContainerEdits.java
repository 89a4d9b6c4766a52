package io.acceld.cdi;

import io.acceld.allocation.RuntimeSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link RuntimeSpec} as CDI {@code containerEdits}: {@code env} as {@code NAME=value} strings
 * (sorted, so the same spec renders the same bytes), {@code deviceNodes} with host and container
 * paths, and {@code mounts}. Keys with nothing in them are left out, as the CDI schema allows.
 */
public final class ContainerEdits {
  private ContainerEdits() {}

  /** The edits of {@code spec}, as a document for {@link io.acceld.util.JsonTrees}. */
  public static Map<String, Object> of(RuntimeSpec spec) {
    Map<String, Object> edits = new LinkedHashMap<>();
    if (!spec.env().isEmpty()) {
      List<String> env = new ArrayList<>();
      new TreeMap<>(spec.env()).forEach((k, v) -> env.add(k + "=" + v));
      edits.put("env", env);
    }
    List<Map<String, Object>> nodes = new ArrayList<>();
    for (RuntimeSpec.DeviceNode n : spec.deviceNodes()) {
      nodes.add(deviceNode(n));
    }
    edits.put("deviceNodes", nodes);
    if (!spec.mounts().isEmpty()) {
      List<Map<String, Object>> mounts = new ArrayList<>();
      for (RuntimeSpec.Mount m : spec.mounts()) {
        Map<String, Object> mount = new LinkedHashMap<>();
        mount.put("hostPath", m.hostPath());
        mount.put("containerPath", m.containerPath());
        mount.put(
            "options",
            m.readOnly()
                ? List.of("ro", "nosuid", "nodev", "bind")
                : List.of("nosuid", "nodev", "bind"));
        mounts.add(mount);
      }
      edits.put("mounts", mounts);
    }
    return edits;
  }

  /** One CDI device node: {@code path} in the container, {@code hostPath} on the host. */
  public static Map<String, Object> deviceNode(RuntimeSpec.DeviceNode node) {
    Map<String, Object> n = new LinkedHashMap<>();
    n.put("path", node.containerPath());
    n.put("hostPath", node.hostPath());
    n.put("permissions", node.permissions());
    return n;
  }
}
