package io.acceld.mesos.executor;

import io.acceld.mesos.containment.Fence;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * The one place a container's exit is observed: when its wrapper (the process group's leader)
 * exits, and how the command ended. Whatever the agent learns of an ending (the wrapper's recorded
 * status, the leader's own exit value, and anything else the kernel keeps about a group, such as an
 * out-of-memory kill) is read through an {@link Exit}, at the moment the container asks.
 */
final class ProcessWatch {
  private final Executor work;

  /**
   * @param work the containers' threads: exits are handled there, never on the JDK's reaper
   */
  ProcessWatch(Executor work) {
    this.work = work;
  }

  /** Calls {@code onExit} on the containers' threads once {@code tree}'s leader has exited. */
  void watch(ProcessTree tree, Sandbox sandbox, Fence fence, Consumer<Exit> onExit) {
    tree.onExit()
        .thenRunAsync(() -> onExit.accept(new Exit(Optional.of(tree), sandbox, fence)), work);
  }

  /** The exit of a container whose process ended while the agent was down (no leader to ask). */
  static Exit whileAgentWasDown(Sandbox sandbox, Fence fence) {
    return new Exit(Optional.empty(), sandbox, fence);
  }

  /**
   * A container's ending. Nothing is read until asked: the caller decides when (after killing what
   * the task left behind, for instance).
   *
   * @param leader the wrapper, when the agent saw it exit; empty after a restart found it gone
   * @param fence the container's, still in place: it knows whether the kernel OOM-killed the task
   */
  record Exit(Optional<ProcessTree> leader, Sandbox sandbox, Fence fence) {
    /**
     * When the kernel killed a process of the container at its memory limit: the message for
     * TASK_FAILED with REASON_CONTAINER_LIMITATION_MEMORY. Read before the cgroup is removed.
     */
    Optional<String> memoryLimit() {
      try {
        return fence.memoryLimitHit() ? Optional.of(fence.memoryLimitMessage()) : Optional.empty();
      } catch (IOException e) {
        return Optional.empty(); // the cgroup is gone: nothing says it was the limit
      }
    }

    /** The command's own status, as the wrapper recorded it (empty if it had no chance to). */
    ExitDescription describe() {
      return new ExitDescription(sandbox.exitStatus());
    }

    /** The wrapper's own exit value, when the agent is its parent; else empty. */
    Optional<Integer> leaderExit() {
      return leader.flatMap(ProcessTree::exitValue);
    }
  }
}
