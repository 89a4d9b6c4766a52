package io.acceld.allocation;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a workload gets for a set of devices, said once for every consumer (as YARN's {@code
 * DeviceRuntimeSpec}): the kubelet's Allocate renders it as a {@code ContainerAllocateResponse},
 * the Mesos executor as a task's environment and devices, a DRA driver as CDI devices.
 *
 * @param env environment variables, such as {@code NVIDIA_VISIBLE_DEVICES}
 * @param deviceNodes device nodes to give the workload, each once, in request order
 * @param cdiDevices fully qualified CDI device names ({@code nvidia.com/gpu=GPU-...}), when CDI is
 *     on
 * @param mounts host paths to mount (none today; the field exists so consumers render it)
 */
public record RuntimeSpec(
    Map<String, String> env,
    List<DeviceNode> deviceNodes,
    List<String> cdiDevices,
    List<Mount> mounts) {
  public RuntimeSpec {
    env = Map.copyOf(env);
    deviceNodes = List.copyOf(deviceNodes);
    cdiDevices = List.copyOf(cdiDevices);
    mounts = List.copyOf(mounts);
  }

  /**
   * One device node.
   *
   * @param hostPath where the node is on the host (under {@code --host-dev-prefix})
   * @param containerPath where the workload sees it ({@code /dev/...})
   * @param permissions cgroup permissions, {@code rw}
   */
  public record DeviceNode(String hostPath, String containerPath, String permissions) {
    public DeviceNode {
      Objects.requireNonNull(hostPath, "hostPath");
      Objects.requireNonNull(containerPath, "containerPath");
      Objects.requireNonNull(permissions, "permissions");
    }
  }

  /** A bind mount. */
  public record Mount(String hostPath, String containerPath, boolean readOnly) {}
}
