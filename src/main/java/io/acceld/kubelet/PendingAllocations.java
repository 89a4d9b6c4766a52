package io.acceld.kubelet;

import io.acceld.ledger.Holder;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Names the holders of Allocate's pending leases. Allocate says nothing about the pod, so each
 * container request gets its own name, unique across agent restarts: the start time (millisecond)
 * and a counter, {@code alloc-<start>-<n>}.
 */
final class PendingAllocations {
  private final String prefix;
  private final AtomicLong counter = new AtomicLong();

  PendingAllocations(Clock clock) {
    this.prefix = "alloc-" + clock.millis() + "-";
  }

  Holder.KubeletPending next() {
    return new Holder.KubeletPending(prefix + counter.incrementAndGet());
  }
}
