package io.acceld.mesos.executor;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What containment did, counted for the agent's series: tasks that a limit of their container
 * ended. One per {@link Containers}, shared by its containers.
 */
final class ContainmentCounters {
  private final AtomicLong memoryLimited = new AtomicLong();

  /** A task ended because its container hit its memory limit. */
  void memoryLimitHit(int tasks) {
    memoryLimited.addAndGet(tasks);
  }

  long memoryLimited() {
    return memoryLimited.get();
  }
}
