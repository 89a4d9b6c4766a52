package io.acceld.mesos.containment;

import java.util.List;
import java.util.Optional;

/**
 * What {@code /state} shows of a container's containment.
 *
 * @param cgroupVersion {@code v1}, {@code v2} or {@code none}
 * @param cgroups the container's cgroup directories, one per v1 controller or the one of v2
 * @param user the user the task runs as, empty when it runs as the agent's user
 * @param deniedDevices {@code major:minor} of the accelerator nodes the fence denies
 * @param allowedDevices {@code major:minor} of the accelerator nodes present that it does not deny:
 *     the container's own and their companions; empty without device isolation
 */
public record FenceDescription(
    String containerId,
    String cgroupVersion,
    List<String> cgroups,
    Optional<UserIdentity> user,
    Limits limits,
    List<String> isolation,
    List<String> deniedDevices,
    List<String> allowedDevices) {
  public FenceDescription {
    cgroups = List.copyOf(cgroups);
    isolation = List.copyOf(isolation);
    deniedDevices = List.copyOf(deniedDevices);
    allowedDevices = List.copyOf(allowedDevices);
  }
}
