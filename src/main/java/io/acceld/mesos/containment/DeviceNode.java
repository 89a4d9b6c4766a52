package io.acceld.mesos.containment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * A character device node and the numbers the kernel checks on open: the device fence works on
 * {@code major:minor}, never on paths, since a node can be made anywhere under any name.
 */
public record DeviceNode(Path path, int major, int minor) {
  public DeviceNode {
    if (major < 0 || major > 0xfff || minor < 0 || minor > 0xfffff) {
      // the kernel's dev_t has 12 bits of major and 20 of minor
      throw new IllegalArgumentException(
          "device " + path + " has an impossible number " + major + ":" + minor);
    }
  }

  /**
   * Reads the numbers of the node at {@code path}, following symlinks as open does.
   *
   * @throws IOException when it is missing or not a character device
   */
  public static DeviceNode of(Path path) throws IOException {
    int mode = (Integer) Files.getAttribute(path, "unix:mode");
    if ((mode & 0170000) != 0020000) { // S_IFMT, S_IFCHR
      throw new IOException(path + " is not a character device node");
    }
    long rdev = (Long) Files.getAttribute(path, "unix:rdev");
    return new DeviceNode(path, major(rdev), minor(rdev));
  }

  /** Whether {@code path} is a character device node (without following a final symlink). */
  static boolean isCharDevice(Path path) {
    try {
      int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      return (mode & 0170000) == 0020000;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  /** glibc's {@code major()} of a Linux {@code dev_t}. */
  static int major(long dev) {
    return (int) (((dev >>> 32) & 0xfffff000L) | ((dev >>> 8) & 0xfffL));
  }

  /** glibc's {@code minor()} of a Linux {@code dev_t}. */
  static int minor(long dev) {
    return (int) (((dev >>> 12) & 0xffffff00L) | (dev & 0xffL));
  }

  /** Whether this is the same device as {@code other}, whatever the paths. */
  public boolean sameDevice(DeviceNode other) {
    return major == other.major && minor == other.minor;
  }

  /** {@code major:minor}, as the devices cgroup spells it. */
  public String number() {
    return major + ":" + minor;
  }
}
