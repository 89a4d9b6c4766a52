package io.acceld.mesos.executor;

import io.acceld.mesos.containment.Fence;
import io.acceld.mesos.containment.Unfenced;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a container's processes are killed: SIGTERM to its whole tree with a SIGKILL after
 * a grace period, or SIGKILL at once. One per container, for the tree it was started or re-attached
 * with. (The only other kill is {@link ProcessStarter.Started#abandon()}, of a wrapper that never
 * ran anything of its task.)
 *
 * <p>A fenced container's SIGKILL goes to its wrapper's group and to every process in its cgroup
 * ({@link Fence#killAll}), which finds what a double fork or setsid took out of the group; the
 * bounded walk of the process tree is left for {@code --mesos-isolation none}, where nothing better
 * is known. {@link #destroy} then removes the cgroup.
 *
 * <p>Its monitor guards only its own escalation. Containers call it while holding their own monitor
 * (a kill decision and its signal are one step for them), so it never calls back into its
 * container: the order is always container, then killer.
 */
final class ProcessKiller {
  private static final Logger log = LoggerFactory.getLogger(ProcessKiller.class);

  /** How long a SIGKILL of a whole cgroup may take to empty it. */
  static final Duration KILL_ALL_TIMEOUT = Duration.ofSeconds(5);

  private final ProcessTree tree;
  private final Fence fence;
  private final ScheduledExecutorService work;

  /** Whether the SIGTERM went out: it is sent once, however often the grace period changes. */
  @GuardedBy("this")
  private boolean signalled;

  /** The SIGKILL scheduled after the grace period; null until a graceful kill was asked for. */
  @GuardedBy("this")
  private ScheduledFuture<?> escalation;

  /**
   * @param work where the SIGKILL after the grace period runs
   */
  ProcessKiller(ProcessTree tree, Fence fence, ScheduledExecutorService work) {
    this.tree = tree;
    this.fence = fence;
    this.work = work;
  }

  /**
   * SIGTERM to the tree (the first time only), and SIGKILL once {@code grace} has passed from now.
   * A later call replaces the pending SIGKILL: callers ask again only with a shorter grace.
   */
  synchronized void terminate(Duration grace) {
    if (escalation != null) {
      escalation.cancel(false);
    }
    if (!signalled) {
      tree.terminate();
      signalled = true;
    }
    escalation = work.schedule(this::kill, grace.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Whether a graceful kill is under way: SIGTERM sent, its SIGKILL still to come. */
  synchronized boolean escalating() {
    return escalation != null && !escalation.isDone();
  }

  /** Drops the pending SIGKILL: the tree has ended. */
  synchronized void cancelEscalation() {
    if (escalation != null) {
      escalation.cancel(false);
    }
  }

  /** SIGKILL to whatever is left of the container, the leader included. */
  void kill() {
    if (fence instanceof Unfenced) {
      tree.kill();
      return;
    }
    tree.killGroup();
    try {
      if (!fence.killAll(KILL_ALL_TIMEOUT)) {
        log.warn(
            "Container {} still has processes {} after SIGKILL to its cgroup",
            fence.containerId(),
            KILL_ALL_TIMEOUT);
      }
    } catch (IOException e) {
      log.warn("Could not kill container {}'s cgroup: {}", fence.containerId(), e.toString());
    }
  }

  /** Removes the cgroup of a container whose process never ran anything of the task. */
  static void remove(Fence fence) {
    try {
      fence.destroy();
    } catch (IOException | RuntimeException e) {
      log.warn("Could not remove container {}'s cgroup: {}", fence.containerId(), e.toString());
    }
  }

  /**
   * Kills whatever is left and removes the container's cgroup: once its end is known, nothing of it
   * may stay behind.
   */
  void destroy() {
    kill();
    remove(fence);
  }
}
