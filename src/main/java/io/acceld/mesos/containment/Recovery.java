package io.acceld.mesos.containment;

import java.util.List;
import java.util.Map;

/**
 * What {@link Containment#recover} found under the agent's cgroup parent after a restart.
 *
 * @param kept containers whose cgroups were left, since they are alive
 * @param removed containers that had ended, their processes killed and cgroups removed
 * @param failed containers whose cgroups could not be removed, with why
 */
public record Recovery(List<String> kept, List<String> removed, Map<String, String> failed) {
  public Recovery {
    kept = List.copyOf(kept);
    removed = List.copyOf(removed);
    failed = Map.copyOf(failed);
  }
}
