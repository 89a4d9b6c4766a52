package io.acceld.mesos.scheduler;

import io.acceld.ledger.Holder;
import io.acceld.proto.mesos.v1.KillPolicy;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * ACCEPTed tasks between their lease and the task book: their CPUs, memory and disk (so nothing is
 * offered twice while the lease is persisted), and KILLs that arrived meanwhile. Not thread-safe:
 * the master's one lock guards it.
 */
final class LaunchesInFlight {
  /** A KILL that waits for its task to reach the executor side. */
  record DeferredKill(Optional<KillPolicy> policy) {}

  private final Map<Holder.MesosTask, Quantities> launching = new HashMap<>();
  private final Map<Holder.MesosTask, Optional<KillPolicy>> kills = new HashMap<>();

  void begin(Holder.MesosTask task, Quantities scalars) {
    launching.put(task, scalars);
  }

  boolean contains(Holder.MesosTask task) {
    return launching.containsKey(task);
  }

  /**
   * Holds a KILL of a task in flight until its launch is done.
   *
   * @return false if the task is not in flight (the KILL is for the executor side, or unknown)
   */
  boolean deferKill(Holder.MesosTask task, Optional<KillPolicy> policy) {
    if (!launching.containsKey(task)) {
      return false;
    }
    kills.put(task, policy);
    return true;
  }

  /** The launch is done (handed over or dropped): the KILL asked for meanwhile, if any. */
  Optional<DeferredKill> end(Holder.MesosTask task) {
    launching.remove(task);
    Optional<KillPolicy> policy = kills.remove(task);
    return policy == null ? Optional.empty() : Optional.of(new DeferredKill(policy));
  }

  /**
   * {@code used} plus what the launches in flight use, but for {@code counted} (already in the task
   * book). Added one by one onto {@code used}, so sums come out as they always did.
   */
  Quantities plusUsedBesides(Quantities used, Set<Holder.MesosTask> counted) {
    for (Map.Entry<Holder.MesosTask, Quantities> e : launching.entrySet()) {
      if (!counted.contains(e.getKey())) {
        used = used.plus(e.getValue());
      }
    }
    return used;
  }
}
