package io.acceld.util;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * An exclusive, owner-only lock file holding the pid of the process that holds it. The kernel drops
 * the lock when the process dies, however it dies, so a stale file never blocks the next start.
 */
public final class PidLock implements AutoCloseable {
  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  private PidLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /** Another process (or another part of this one) holds the lock. */
  public static final class HeldElsewhere extends IOException {
    private final String holder;

    HeldElsewhere(String message, String holder) {
      super(message);
      this.holder = holder;
    }

    /** The holder's pid as its file says, or empty when it did not say. */
    public String holder() {
      return holder;
    }
  }

  /**
   * Takes the lock, or fails naming who holds it.
   *
   * @throws HeldElsewhere if another process holds it
   * @throws IOException if the lock file cannot be created or opened
   */
  public static PidLock acquire(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    FileChannel channel =
        FileChannel.open(
            file,
            Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE),
            PosixFilePermissions.asFileAttribute(AtomicFiles.OWNER_ONLY));
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
          "another acceld" + (holder.isEmpty() ? "" : " (pid " + holder + ")") + " holds " + file,
          holder);
    }
    channel.truncate(0);
    channel.write(
        ByteBuffer.wrap(
            (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
    channel.force(false);
    return new PidLock(file, channel, lock);
  }

  public Path file() {
    return file;
  }

  /** Releases the lock and deletes its file. */
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
