package io.acceld.mesos.containment;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running container's memory hard limit comes down when its tasks end, but only as far as the
 * kernel lets it: under what the container uses it cannot reclaim to, v1 refuses the write (EBUSY)
 * and v2 would OOM-kill the container, which {@link CgroupV2Fence} therefore does not ask for. The
 * higher limit then stays; a task is never failed for that, only logged, since the container runs
 * on unharmed and the next update tries again.
 */
final class MemoryLowering {
  private static final Logger log = LoggerFactory.getLogger(MemoryLowering.class);

  private MemoryLowering() {}

  static void refused(String containerId, long kept, long requested, Object why) {
    log.warn(
        "Container {} keeps its memory limit of {} bytes: lowering it to {} bytes for its tasks"
            + " now was refused ({})",
        containerId,
        kept,
        requested,
        why instanceof Throwable t ? t.getMessage() : why);
  }
}
