package io.acceld.mesos.containment;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.file.Path;

/** SIGKILLs the processes a {@code cgroup.procs} lists. */
final class Pids {
  private final Libc libc;

  Pids(Libc libc) {
    this.libc = libc;
  }

  /**
   * Callers freeze the cgroup first: a frozen process cannot fork or exit, so the list is complete
   * and no pid in it is reused before the signal lands.
   */
  void killAll(Path procs) throws IOException {
    for (int pid : CgroupFiles.pids(procs)) {
      try {
        libc.kill(pid, Libc.SIGKILL);
      } catch (LastErrorException e) {
        if (e.getErrorCode() != Libc.ESRCH) { // already gone is what we wanted
          throw new IOException("cannot kill pid " + pid + ": errno " + e.getErrorCode(), e);
        }
      }
    }
  }
}
