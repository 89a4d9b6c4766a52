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

  Limits limits();

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
