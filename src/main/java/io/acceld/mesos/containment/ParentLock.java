package io.acceld.mesos.containment;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * An exclusive {@code flock(2)} on the agent's cgroup parent directory, held while the Mesos bridge
 * runs: {@link Containment#recover} removes every container under the parent that its own
 * checkpoint does not know, so a second agent on the same parent would destroy the first one's
 * running tasks. cgroupfs (v1) and kernfs (cgroup2) directories take flock; the lock lives with the
 * open file description, so it goes with {@link #close}, with the process's death (a kill -9
 * included), and never to a task, since the descriptor is close-on-exec.
 */
public final class ParentLock implements AutoCloseable {
  private final Libc libc;
  private final Path dir;
  private int fd;

  private ParentLock(Libc libc, Path dir, int fd) {
    this.libc = libc;
    this.dir = dir;
    this.fd = fd;
  }

  /**
   * @param flag the setting that names the parent, for the message when another agent holds it
   * @throws IOException naming the parent and {@code flag} when another holds it, or why it cannot
   *     be locked
   */
  static ParentLock take(Libc libc, Path dir, String parent, String flag) throws IOException {
    int fd;
    try {
      fd = libc.open(dir.toString(), Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_CLOEXEC);
    } catch (LastErrorException e) {
      throw new IOException(
          "cannot open the agent's cgroup parent " + dir + " to lock it: " + e.getMessage(), e);
    }
    try {
      libc.flock(fd, Libc.LOCK_EX | Libc.LOCK_NB);
      return new ParentLock(libc, dir, fd);
    } catch (LastErrorException e) {
      libc.close(fd);
      if (e.getErrorCode() == Libc.EWOULDBLOCK) {
        throw new IOException(
            "the Mesos cgroup parent '"
                + parent
                + "' ("
                + dir
                + ") is held by another acceld on this node, whose containers this one's recovery"
                + " would remove; give each agent its own "
                + flag,
            e);
      }
      throw new IOException(
          "cannot lock the agent's cgroup parent " + dir + ": " + e.getMessage(), e);
    }
  }

  /** The directory locked. */
  public Path dir() {
    return dir;
  }

  /** Releases the lock; idempotent. */
  @Override
  public synchronized void close() {
    if (fd >= 0) {
      libc.close(fd); // closing the last descriptor of the open file drops its flock
      fd = -1;
    }
  }
}
