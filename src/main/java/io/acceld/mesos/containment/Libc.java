package io.acceld.mesos.containment;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.util.Optional;

/** The few libc calls containment needs, bound through JNA. */
interface Libc extends Library {
  int ESRCH = 3;
  int ERANGE = 34;
  int SIGKILL = 9;
  int O_RDONLY = 0;
  int O_DIRECTORY = 0200000;
  int O_CLOEXEC = 02000000;
  int LOCK_EX = 2;
  int LOCK_NB = 4;
  int EWOULDBLOCK = 11;

  /** {@code syscall(2)}, used for {@code bpf(2)}, which glibc does not wrap. */
  long syscall(long number, int cmd, Pointer attr, int size) throws LastErrorException;

  int open(String path, int flags) throws LastErrorException;

  int close(int fd) throws LastErrorException;

  /** {@code flock(2)}: held by the open file description, so two opens in one process exclude. */
  int flock(int fd, int operation) throws LastErrorException;

  int kill(int pid, int signal) throws LastErrorException;

  int geteuid();

  /** Returns an error number (not -1 and errno); {@code result} is null when there is no user. */
  int getpwnam_r(
      String name, Pointer passwd, Pointer buffer, long bufferSize, PointerByReference result);

  /** Returns -1 and sets {@code count} to the number needed when {@code groups} is too small. */
  int getgrouplist(String user, int group, int[] groups, IntByReference count);

  /** Loaded once, on first use; empty where no libc can be bound. */
  final class Binding {
    static final Optional<Libc> LIBC = load();

    private static Optional<Libc> load() {
      try {
        return Optional.of(Native.load("c", Libc.class));
      } catch (UnsatisfiedLinkError e) {
        return Optional.empty();
      }
    }

    private Binding() {}
  }

  static Libc get() {
    return Binding.LIBC.orElseThrow(
        () -> new IllegalStateException("libc cannot be bound through JNA on this machine"));
  }
}
