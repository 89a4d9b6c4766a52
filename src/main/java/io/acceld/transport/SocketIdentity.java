package io.acceld.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;

/**
 * Which file a path names right now: inode and modification time. The inode alone is not enough
 * because file systems reuse a freed inode at once, so a socket deleted and re-created can keep it;
 * the new file's modification time (nanoseconds on ext4 and tmpfs) tells them apart.
 */
public record SocketIdentity(Object fileKey, FileTime modified) {
  /** The identity of {@code path}, or null if nothing is there. */
  public static SocketIdentity of(Path path) {
    try {
      BasicFileAttributes a =
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return new SocketIdentity(a.fileKey(), a.lastModifiedTime());
    } catch (IOException e) {
      return null;
    }
  }
}
