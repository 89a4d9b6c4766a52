package io.acceld.simulate;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Makes character device nodes with {@code mknod(2)}, for simulated {@code /dev} trees that look
 * like the kernel's to everything that stats them ({@code acceld doctor}, a container runtime
 * reading CDI specs). It needs root (or CAP_MKNOD); without it the caller writes an empty file, as
 * the simulated node did before, and doctor reports the node as not a character device.
 */
final class CharDevices {
  private static final int S_IFCHR = 0020000;

  interface LibC extends Library {
    int mknod(String path, int mode, long dev);
  }

  /** Loaded once, on first use; empty where no libc with mknod can be bound. */
  private static final class Binding {
    static final Optional<LibC> LIBC = load();

    private static Optional<LibC> load() {
      try {
        return Optional.of(Native.load("c", LibC.class));
      } catch (UnsatisfiedLinkError e) {
        return Optional.empty();
      }
    }
  }

  private CharDevices() {}

  /**
   * Creates {@code path} as character device {@code major:minor}.
   *
   * @return false when this process may not (not root) or cannot (no libc binding)
   */
  static boolean create(Path path, int major, int minor, int permissions) {
    try {
      return Binding.LIBC
          .map(c -> c.mknod(path.toString(), S_IFCHR | permissions, device(major, minor)) == 0)
          .orElse(false);
    } catch (UnsatisfiedLinkError e) { // a libc without the mknod symbol (glibc before 2.33)
      return false;
    }
  }

  /** A Linux {@code dev_t}, as glibc's {@code makedev()} encodes it. */
  static long device(int major, int minor) {
    long ma = major & 0xffffffffL;
    long mi = minor & 0xffffffffL;
    return ((ma & 0xfffff000L) << 32)
        | ((ma & 0xfffL) << 8)
        | ((mi & 0xffffff00L) << 12)
        | (mi & 0xffL);
  }
}
