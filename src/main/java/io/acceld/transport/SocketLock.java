package io.acceld.transport;

import io.acceld.util.PidLock;
import java.io.IOException;
import java.nio.file.Path;

/**
 * An exclusive lock beside a socket, held while the agent serves it. Removing a stale socket is
 * required before binding, and the epoll bind would replace even a live one; the lock is what stops
 * a second agent from silently taking over the first one's socket. The kubelet's clean-up deletes
 * only sockets, so the lock file survives kubelet restarts.
 */
public final class SocketLock implements AutoCloseable {
  private final PidLock lock;

  private SocketLock(PidLock lock) {
    this.lock = lock;
  }

  public static Path lockFileFor(Path socket) {
    return socket.resolveSibling(socket.getFileName() + ".lock");
  }

  /** Another process (or another agent in this one) holds the lock. */
  public static final class HeldElsewhere extends IOException {
    HeldElsewhere(String message) {
      super(message);
    }
  }

  /**
   * Takes the lock of {@code socket}, or fails naming who holds it.
   *
   * @throws HeldElsewhere if another agent holds it
   * @throws IOException if the lock file cannot be created or opened
   */
  public static SocketLock acquire(Path socket) throws IOException {
    Path file = lockFileFor(socket);
    try {
      return new SocketLock(PidLock.acquire(file));
    } catch (PidLock.HeldElsewhere e) {
      throw new HeldElsewhere(
          "another acceld"
              + (e.holder().isEmpty() ? "" : " (pid " + e.holder() + ")")
              + " is serving "
              + socket
              + ": "
              + file
              + " is locked");
    }
  }

  @Override
  public void close() throws IOException {
    lock.close();
  }
}
