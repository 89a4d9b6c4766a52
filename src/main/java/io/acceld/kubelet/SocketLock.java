package io.acceld.kubelet;

import io.acceld.util.AtomicFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock beside a socket, held while the agent serves it. Removing a stale socket is
 * required before binding, and the epoll bind would replace even a live one; the lock is what stops
 * a second agent from silently taking over the first one's socket. The kubelet's clean-up deletes
 * only sockets, so the lock file survives kubelet restarts.
 */
final class SocketLock implements AutoCloseable {
  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  private SocketLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  static Path lockFileFor(Path socket) {
    return socket.resolveSibling(socket.getFileName() + ".lock");
  }

  /** Another process (or another agent in this one) holds the lock. */
  static final class HeldElsewhere extends IOException {
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
  static SocketLock acquire(Path socket) throws IOException {
    Path file = lockFileFor(socket);
    Files.createDirectories(file.getParent());
    FileChannel channel =
        FileChannel.open(
            file,
            java.util.Set.of(
                StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE),
            java.nio.file.attribute.PosixFilePermissions.asFileAttribute(AtomicFiles.OWNER_ONLY));
    Files.setPosixFilePermissions(file, AtomicFiles.OWNER_ONLY);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      String holder = Files.readString(file, StandardCharsets.US_ASCII).strip();
      channel.close();
      throw new HeldElsewhere(
          "another acceld"
              + (holder.isEmpty() ? "" : " (pid " + holder + ")")
              + " is serving "
              + socket
              + ": "
              + file
              + " is locked");
    }
    channel.truncate(0);
    channel.write(
        ByteBuffer.wrap(
            (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
    channel.force(false);
    return new SocketLock(file, channel, lock);
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
      channel.close();
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
