package io.acceld.mesos.executor;

import io.acceld.util.GuardedBy;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one place a container's processes are killed: SIGTERM to its whole tree with a SIGKILL after
 * a grace period, or SIGKILL at once. One per container, for the tree it was started or re-attached
 * with. (The only other kill is {@link ProcessStarter.Started#abandon()}, of a wrapper that never
 * ran anything of its task.)
 *
 * <p>Its monitor guards only its own escalation. Containers call it while holding their own monitor
 * (a kill decision and its signal are one step for them), so it never calls back into its
 * container: the order is always container, then killer.
 */
final class ProcessKiller {
  private final ProcessTree tree;
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
  ProcessKiller(ProcessTree tree, ScheduledExecutorService work) {
    this.tree = tree;
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
    escalation = work.schedule(tree::kill, grace.toNanos(), TimeUnit.NANOSECONDS);
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

  /** SIGKILL to whatever is left of the tree, the leader included. */
  void kill() {
    tree.kill();
  }
}
