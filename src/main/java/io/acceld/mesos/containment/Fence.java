package io.acceld.mesos.containment;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * One container's containment: its cgroup(s), limits, device fence and user. Launch the task with
 * {@link #launchPrefix()} prepended to its argv; when it ends, {@link #killAll} then {@link
 * #destroy}.
 */
public sealed interface Fence permits CgroupV1Fence, CgroupV2Fence, Unfenced {
  String containerId();

  /**
   * The accelerator nodes the fence denies now, as made or as {@link #updateDevices} changed them
   * since: kept in the container's checkpoint, so that a fence re-attached after a restart
   * describes the same denial as before.
   */
  List<DeviceNode> denied();

  /**
   * Follows a change of the container's devices, a task launched into its executor with
   * accelerators of its own or ended there, as Mesos's gpu/nvidia isolator allows a running
   * container the GPUs of a new task and denies them again once they are released. On v1 the
   * difference is written to {@code devices.allow} and {@code devices.deny}; on v2 a program with
   * the new list takes the place of the old one, attached before the old one is detached.
   *
   * @param denied what the fence is to deny from now on ({@link Containment#denial})
   * @throws IOException when the kernel refused; the denial in force may then be a mix of the old
   *     and the new on v1, and is the old one on v2
   */
  void updateDevices(List<DeviceNode> denied) throws IOException;

  /** The limits in force: those it was made with, as {@link #update} changed them since. */
  Limits limits();

  /**
   * Follows a change of the container's resources, a task launched into its executor or ended
   * there, as Mesos's containerizer updates a running container on each launch and task end: cpu
   * shares (v2 weight), the CFS quota, the memory soft limit ({@code memory.soft_limit_in_bytes},
   * v2 {@code memory.low}) and the memory hard limit take the new figures. Lowering the hard limit
   * is best-effort: under what the container uses now the kernel cannot get there without
   * OOM-killing it (v1 refuses with EBUSY; v2 is not asked), so the higher limit stays, one WARN
   * names the container, and nothing fails. Afterwards {@link #limits()} says what is in force.
   *
   * @param requested the container's resources now, its executor's included
   * @throws IOException when a control file cannot be written (a lower memory limit aside); the
   *     limits in force may then be a mix of the old and the new
   */
  void update(Limits requested) throws IOException;

  /**
   * The argv to put before the task's command: joins the cgroups and switches user, then execs the
   * command. Empty when there is nothing to do (no isolation, no user switch).
   */
  List<String> launchPrefix();

  /**
   * SIGKILLs every process in the container, double-forked ones included, and waits up to {@code
   * timeout} until none is left.
   *
   * @return whether the container is empty; always false for {@link Unfenced}, which cannot see its
   *     processes (the executor kills the task's process group instead)
   */
  boolean killAll(Duration timeout) throws IOException;

  /** Whether the kernel OOM-killed a process of the container at its memory limit. */
  boolean memoryLimitHit() throws IOException;

  /**
   * For {@code TASK_FAILED} with {@code REASON_CONTAINER_LIMITATION_MEMORY}: what the limit was.
   */
  default String memoryLimitMessage() {
    long bytes = limits().memoryBytes();
    return "Memory limit exceeded: the container was OOM-killed at its limit of "
        + bytes
        + " bytes ("
        + (bytes >> 20)
        + " MiB)";
  }

  /**
   * Kills whatever is still inside and removes the container's cgroups. Idempotent: cgroups already
   * gone are fine.
   *
   * @throws IOException when a cgroup cannot be removed in a few seconds
   */
  void destroy() throws IOException;

  /** For the agent's {@code /state}. */
  FenceDescription describe();
}
