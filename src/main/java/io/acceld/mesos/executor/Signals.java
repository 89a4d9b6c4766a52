package io.acceld.mesos.executor;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * POSIX signals to process groups, which {@link ProcessHandle} cannot send: it signals one pid, and
 * a task's children that have been re-parented (their parent exited first) are no longer its
 * descendants, but they are still in its process group.
 */
final class Signals {
  static final int SIGKILL = 9;
  static final int SIGTERM = 15;

  private interface LibC extends Library {
    int kill(int pid, int sig);
  }

  private final LibC libc;

  private Signals(LibC libc) {
    this.libc = libc;
  }

  static Signals load() {
    return new Signals(Native.load("c", LibC.class));
  }

  /** Signals every process of group {@code pgid}; false when the group has no process left. */
  boolean signalGroup(long pgid, int signal) {
    if (pgid <= 1) {
      // kill(0) or kill(-1) would signal the agent's own group or every process: never.
      throw new IllegalArgumentException("refusing to signal process group " + pgid);
    }
    return libc.kill(-(int) pgid, signal) == 0;
  }
}
