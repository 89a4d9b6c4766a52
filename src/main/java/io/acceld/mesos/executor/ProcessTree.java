package io.acceld.mesos.executor;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A container's processes: the wrapper (leader of its own process group, see {@link CommandLine})
 * and everything it started. Identified by pid and start time, so a pid the kernel reused for an
 * unrelated process after a restart is never mistaken for, or signalled as, the task.
 */
final class ProcessTree {
  static final Duration START_TIME_TOLERANCE = Duration.ofSeconds(1);

  private final ProcessHandle leader;
  private final Optional<Process> child;
  private final Instant startTime;
  private final Signals signals;

  private ProcessTree(
      ProcessHandle leader, Optional<Process> child, Instant startTime, Signals signals) {
    this.leader = leader;
    this.child = child;
    this.startTime = startTime;
    this.signals = signals;
  }

  /** The tree of a process this agent just started. */
  static ProcessTree started(Process process, Signals signals) {
    ProcessHandle handle = process.toHandle();
    Instant start = handle.info().startInstant().orElse(Instant.EPOCH);
    return new ProcessTree(handle, Optional.of(process), start, signals);
  }

  /**
   * The tree of {@code pid} if that process is alive and started at {@code startTime}: after a
   * restart, the same process as before. Empty if it is gone, or the pid is now someone else's.
   */
  static Optional<ProcessTree> attach(long pid, Instant startTime, Signals signals) {
    if (startTime.equals(Instant.EPOCH)) {
      return Optional.empty(); // its start time was unknown: it cannot be told from a reused pid
    }
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .filter(h -> h.info().startInstant().map(t -> sameStart(t, startTime)).orElse(false))
        .map(h -> new ProcessTree(h, Optional.empty(), startTime, signals));
  }

  /**
   * Start times are the boot time plus the process's start in clock ticks since boot; Linux derives
   * the boot time from the current clock, so an NTP step moves it. A second either way does not
   * take a surviving task for dead because the clock was corrected, and still tells a reused pid
   * apart: that process started after the task had died, which within a second of the task's own
   * start is all but impossible.
   */
  static boolean sameStart(Instant a, Instant b) {
    return Duration.between(a, b).abs().compareTo(START_TIME_TOLERANCE) <= 0;
  }

  long pid() {
    return leader.pid();
  }

  /** When the leader started; {@link Instant#EPOCH} if the system did not say. */
  Instant startTime() {
    return startTime;
  }

  boolean isAlive() {
    return leader.isAlive();
  }

  /** Completes when the leader has exited (also for a process the agent did not start). */
  CompletableFuture<ProcessHandle> onExit() {
    return leader.onExit();
  }

  /**
   * The leader's exit value once it has exited, when the agent is its parent (a re-attached
   * process's exit value went to init).
   */
  Optional<Integer> exitValue() {
    return child.filter(p -> !p.isAlive()).map(Process::exitValue);
  }

  /**
   * SIGTERM to the whole tree: the group, and descendants that left it. If the wrapper has not yet
   * started the command, there is nothing to be graceful to, and a SIGTERM could even be lost (sent
   * before the group exists, or caught by the wrapper before it forks): the tree is killed at once.
   * One window remains: a SIGTERM that lands in the wrapper's child between its fork and its exec
   * is caught by the wrapper's trap there and lost; the SIGKILL after the grace period still ends
   * the task.
   */
  void terminate() {
    List<ProcessHandle> descendants = descendants();
    if (descendants.isEmpty()) {
      kill();
      return;
    }
    signals.signalGroup(leader.pid(), Signals.SIGTERM);
    descendants.forEach(ProcessHandle::destroy);
  }

  /** SIGKILL to the whole tree, whatever is left of it, the leader included. */
  void kill() {
    List<ProcessHandle> descendants = descendants();
    signals.signalGroup(leader.pid(), Signals.SIGKILL);
    if (leader.isAlive()) {
      leader.destroyForcibly(); // before it made its group, the group signal missed it
    }
    descendants.forEach(ProcessHandle::destroyForcibly);
  }

  /**
   * SIGKILL to the wrapper and its process group only, without walking its descendants: for a
   * fenced container, whose cgroup finds every process of the task, those that left the group
   * included.
   */
  void killGroup() {
    signals.signalGroup(leader.pid(), Signals.SIGKILL);
    if (leader.isAlive()) {
      leader.destroyForcibly();
    }
  }

  /** Snapshot first: once signalled, re-parented ones are out of reach by tree. */
  private List<ProcessHandle> descendants() {
    return leader.isAlive() ? leader.descendants().toList() : List.of();
  }
}
