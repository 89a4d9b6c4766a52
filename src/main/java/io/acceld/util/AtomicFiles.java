package io.acceld.util;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Replaces a file so that a reader, or the agent after a crash at any instant, sees either the old
 * content or the new, never a mix: write a temporary file in the same directory, fsync it, rename
 * it over the target, fsync the directory so the rename itself is durable. The file gets {@code
 * mode} whatever the umask, because it is created with it and then set explicitly.
 *
 * <p>A crash before the rename leaves a temporary file ({@code .<name>.<random>.tmp}) beside the
 * target; {@link #isTemporary} lets readers of the directory skip it, and the next write of the
 * same target removes leftovers.
 */
public final class AtomicFiles {
  /** Owner read and write only: state, locks. */
  public static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  /** World-readable, owner-writable: files other components must read (CDI specs). */
  public static final Set<PosixFilePermission> WORLD_READABLE =
      PosixFilePermissions.fromString("rw-r--r--");

  /** A directory only its owner may list or change: the state directory. */
  public static final Set<PosixFilePermission> DIRECTORY_OWNER_ONLY =
      PosixFilePermissions.fromString("rwx------");

  /** A directory others may read but not change: the CDI directory. */
  public static final Set<PosixFilePermission> DIRECTORY_WORLD_READABLE =
      PosixFilePermissions.fromString("rwxr-xr-x");

  private static final String TEMP_SUFFIX = ".tmp";

  private AtomicFiles() {}

  /**
   * Atomically replaces {@code target} with {@code content}, durably.
   *
   * @throws IOException if any step fails; {@code target} then still has its previous content
   */
  public static void write(Path target, byte[] content, Set<PosixFilePermission> mode)
      throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    String prefix = "." + target.getFileName() + ".";
    Path temp =
        UniquePaths.create(
            dir,
            prefix,
            TEMP_SUFFIX,
            path -> Files.createFile(path, PosixFilePermissions.asFileAttribute(mode)));
    try {
      Files.setPosixFilePermissions(temp, mode);
      try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
          out.write(buffer);
        }
        out.force(true);
      }
      try {
        Files.move(
            temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        // Only on file systems without rename (none we support); still never a half-written target.
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      syncDirectory(dir);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Whether {@code file} is a temporary file this class writes (a leftover after a crash). */
  public static boolean isTemporary(Path file) {
    String name = file.getFileName().toString();
    return name.startsWith(".") && name.endsWith(TEMP_SUFFIX);
  }

  /**
   * Creates {@code dir} (and its parents) with {@code mode} for each directory this call creates;
   * directories that exist keep theirs.
   */
  public static Path createDirectories(Path dir, Set<PosixFilePermission> mode) throws IOException {
    Path absolute = dir.toAbsolutePath();
    if (Files.isDirectory(absolute)) {
      return absolute;
    }
    Path parent = absolute.getParent();
    if (parent != null) {
      createDirectories(parent, mode);
    }
    try {
      Files.createDirectory(absolute, PosixFilePermissions.asFileAttribute(mode));
      Files.setPosixFilePermissions(absolute, mode);
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(absolute)) {
        throw e;
      }
    }
    return absolute;
  }

  /** Makes a rename or create in {@code dir} durable (Linux lets a directory be fsync'ed). */
  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Some file systems refuse to sync a directory; the rename already happened.
      if (!Files.isDirectory(dir)) {
        throw e;
      }
    }
  }
}
