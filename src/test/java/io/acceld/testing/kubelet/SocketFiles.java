package io.acceld.testing.kubelet;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** File-system helpers for Unix socket files: what the kubelet removes, and socket identity. */
final class SocketFiles {
  private static final int S_IFMT = 0170000;
  private static final int S_IFSOCK = 0140000;

  private SocketFiles() {}

  /** True iff {@code path} is a Unix domain socket (not following a final symlink). */
  static boolean isSocket(Path path) {
    try {
      Object mode = Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      return ((Integer) mode & S_IFMT) == S_IFSOCK;
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      try {
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
            .isOther();
      } catch (IOException notThere) {
        return false;
      }
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The kubelet's {@code CleanupPluginDirectory}: removes every socket directly in {@code dir},
   * keeping directories and every other kind of file (checkpoint, {@code DEPRECATION}).
   *
   * @return the sockets removed
   */
  static List<Path> removeSockets(Path dir) throws IOException {
    List<Path> removed = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        if (isSocket(entry)) {
          try {
            Files.delete(entry);
            removed.add(entry);
          } catch (NoSuchFileException gone) {
            // removed concurrently: the outcome is the same
          }
        }
      }
    }
    return removed;
  }

  /**
   * What identifies one incarnation of a socket file: its inode ({@code fileKey}) and its
   * modification time. ext4 reuses a freed inode at once, so the inode alone cannot tell a
   * re-created socket from the old one; the time can.
   */
  record Identity(Object fileKey, FileTime modified) {}

  static Optional<Identity> identity(Path path) {
    try {
      BasicFileAttributes attrs =
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return Optional.of(new Identity(attrs.fileKey(), attrs.lastModifiedTime()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
