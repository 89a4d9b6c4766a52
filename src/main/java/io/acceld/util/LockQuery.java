package io.acceld.util;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Structure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Asks the kernel who holds a {@link PidLock}, without taking it: {@code fcntl(F_GETLK)} reports
 * the first lock that would conflict with a write lock on the whole file, and sets nothing.
 *
 * <p>Why not simply try the lock and release it: between that try and the release, an agent that
 * starts finds the lock held and exits, believing another agent runs. A shared lock would do the
 * same. Why not the pid the file holds: the file outlives an agent killed with SIGKILL, a pid is
 * reused, and an agent in a container writes the pid of its own namespace. The kernel's answer is
 * about the lock itself and gives the holder's pid as this process's namespace sees it (0 when the
 * holder's namespace is not visible from here).
 *
 * <p>The file is opened read-only and never created. Closing a descriptor drops the POSIX locks
 * this process holds on the file, so this must not run inside an agent over the same directory:
 * {@code acceld doctor} is a process of its own.
 */
public final class LockQuery {
  private static final int O_RDONLY = 0;
  private static final int O_CLOEXEC = 0x80000;
  private static final int F_GETLK = 5;
  private static final short F_WRLCK = 1;
  private static final short F_UNLCK = 2;
  private static final short SEEK_SET = 0;

  /** What the lock file's state is. */
  public sealed interface State {
    /** No file: no agent has run over the directory since it was last stopped cleanly. */
    record NoFile() implements State {}

    /** The file exists and nobody holds its lock: a stale file, harmless. */
    record Free(String pidFileSays) implements State {}

    /**
     * A process holds the lock.
     *
     * @param pid the holder as this process's namespace numbers it; 0 when it cannot see it (the
     *     holder runs in another PID namespace), -1 for an open-file-description lock
     * @param pidFileSays what the file says, the holder's pid in its own namespace
     */
    record Held(long pid, String pidFileSays) implements State {}
  }

  /** {@code struct flock} of 64-bit Linux (x86-64 and arm64 alike). */
  @Structure.FieldOrder({"l_type", "l_whence", "l_start", "l_len", "l_pid"})
  public static final class Flock extends Structure {
    public short l_type;
    public short l_whence;
    public long l_start;
    public long l_len;
    public int l_pid;
  }

  interface LibC extends Library {
    int open(String path, int flags) throws LastErrorException;

    int fcntl(int fd, int cmd, Flock lock) throws LastErrorException;

    int close(int fd) throws LastErrorException;
  }

  private LockQuery() {}

  /**
   * @throws IOException when the file exists but cannot be asked about
   */
  public static State of(Path file) throws IOException {
    if (!Files.exists(file)) {
      return new State.NoFile();
    }
    String says = pidFileSays(file);
    LibC libc;
    try {
      libc = Native.load("c", LibC.class);
    } catch (UnsatisfiedLinkError e) {
      throw new IOException("cannot ask the kernel about locks here: " + e.getMessage(), e);
    }
    int fd;
    try {
      fd = libc.open(file.toString(), O_RDONLY | O_CLOEXEC);
    } catch (LastErrorException e) {
      throw new IOException("cannot open " + file + ": errno " + e.getErrorCode(), e);
    }
    try {
      Flock query = new Flock();
      query.l_type = F_WRLCK;
      query.l_whence = SEEK_SET;
      query.l_start = 0;
      query.l_len = 0; // to the end of the file, however it grows
      libc.fcntl(fd, F_GETLK, query);
      query.read();
      return query.l_type == F_UNLCK ? new State.Free(says) : new State.Held(query.l_pid, says);
    } catch (LastErrorException e) {
      throw new IOException("fcntl(F_GETLK) on " + file + " failed: errno " + e.getErrorCode(), e);
    } finally {
      try {
        libc.close(fd);
      } catch (LastErrorException e) {
        // a failed close of a read-only descriptor loses nothing
      }
    }
  }

  private static String pidFileSays(Path file) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      String text = new String(bytes, 0, Math.min(bytes.length, 32), StandardCharsets.US_ASCII);
      return ClientText.escape(text.strip());
    } catch (IOException e) {
      return "";
    }
  }
}
