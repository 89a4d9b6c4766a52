package io.acceld.mesos.containment;

import io.acceld.config.MesosIsolation;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** What a fence is made of, shared by its kinds; {@code limits} are those it was made with. */
record FenceSpec(
    String containerId,
    Limits limits,
    Set<MesosIsolation> isolation,
    List<DeviceNode> denied,
    Optional<UserIdentity> user,
    Path setpriv,
    Path devRoot) {
  FenceSpec {
    isolation = Set.copyOf(isolation);
    denied = List.copyOf(denied);
  }

  /**
   * With the limits and denial in force, which {@link Fence#update} and {@link Fence#updateDevices}
   * may have changed since {@link #limits} and {@link #denied}.
   */
  FenceDescription describe(
      String version, List<Path> cgroups, Limits inForce, List<DeviceNode> deniedNow) {
    return new FenceDescription(
        containerId,
        version,
        cgroups.stream().map(Path::toString).toList(),
        user,
        inForce,
        isolation.stream().map(i -> MesosIsolation.format(Set.of(i))).sorted().toList(),
        deniedNow.stream().map(DeviceNode::number).toList(),
        allowed(deniedNow));
  }

  /**
   * The accelerator nodes present under {@code --dev-root} that the fence does not deny: the
   * container's own and their companions. Derived from the denial, which the container's checkpoint
   * keeps, so a fence re-attached after a restart shows the same; empty without device isolation
   * (nothing is fenced) or when the nodes cannot be listed (it is only shown).
   */
  private List<String> allowed(List<DeviceNode> deniedNow) {
    if (!isolation.contains(MesosIsolation.DEVICES)) {
      return List.of();
    }
    try {
      return AcceleratorNodes.scan(devRoot).values().stream()
          .filter(node -> deniedNow.stream().noneMatch(node::sameDevice))
          .map(DeviceNode::number)
          .distinct()
          .toList();
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }
}
