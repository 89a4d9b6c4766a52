package io.acceld.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code stat} says about a device node or socket: its type, device number and permission
 * bits. Read without opening the file: opening a device node can wake a GPU, and doctor reads only.
 *
 * @param type the file type
 * @param major the device's major number (character and block devices), else 0
 * @param minor the device's minor number, else 0
 * @param permissions the permission bits ({@code 0666})
 */
record NodeFile(Type type, int major, int minor, int permissions) {
  enum Type {
    CHARACTER_DEVICE("a character device"),
    BLOCK_DEVICE("a block device"),
    SOCKET("a socket"),
    DIRECTORY("a directory"),
    REGULAR_FILE("a regular file"),
    OTHER("neither a device nor a socket");

    private final String words;

    Type(String words) {
      this.words = words;
    }

    @Override
    public String toString() {
      return words;
    }
  }

  private static final int S_IFMT = 0170000;
  private static final int S_IFSOCK = 0140000;
  private static final int S_IFREG = 0100000;
  private static final int S_IFBLK = 0060000;
  private static final int S_IFDIR = 0040000;
  private static final int S_IFCHR = 0020000;

  /**
   * Stats {@code path}, following symlinks as the container runtime does.
   *
   * @return empty when nothing is there
   */
  static Optional<NodeFile> stat(Path path) throws IOException {
    Map<String, Object> attributes;
    try {
      attributes = Files.readAttributes(path, "unix:mode,rdev");
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    int mode = (Integer) attributes.get("mode");
    long rdev = (Long) attributes.get("rdev");
    return Optional.of(new NodeFile(type(mode), major(rdev), minor(rdev), mode & 07777));
  }

  /** The major number of a Linux {@code dev_t}, as glibc's {@code major()} decodes it. */
  static int major(long dev) {
    return (int) (((dev >>> 8) & 0xfffL) | ((dev >>> 32) & ~0xfffL));
  }

  /** The minor number of a Linux {@code dev_t}, as glibc's {@code minor()} decodes it. */
  static int minor(long dev) {
    return (int) ((dev & 0xffL) | ((dev >>> 12) & ~0xffL));
  }

  private static Type type(int mode) {
    return switch (mode & S_IFMT) {
      case S_IFCHR -> Type.CHARACTER_DEVICE;
      case S_IFBLK -> Type.BLOCK_DEVICE;
      case S_IFSOCK -> Type.SOCKET;
      case S_IFDIR -> Type.DIRECTORY;
      case S_IFREG -> Type.REGULAR_FILE;
      default -> Type.OTHER;
    };
  }

  /** Read and write for the owner: what any user of a device node needs, root included. */
  boolean ownerCanReadAndWrite() {
    return (permissions & 0600) == 0600;
  }

  /** {@code crw-rw-rw-}, as {@code ls -l} shows it. */
  String modeString() {
    StringBuilder s =
        new StringBuilder(
            switch (type) {
              case CHARACTER_DEVICE -> "c";
              case BLOCK_DEVICE -> "b";
              case SOCKET -> "s";
              case DIRECTORY -> "d";
              case REGULAR_FILE -> "-";
              case OTHER -> "?";
            });
    String letters = "rwxrwxrwx";
    for (int bit = 8; bit >= 0; bit--) {
      s.append((permissions & (1 << bit)) != 0 ? letters.charAt(8 - bit) : '-');
    }
    return s.toString();
  }
}
