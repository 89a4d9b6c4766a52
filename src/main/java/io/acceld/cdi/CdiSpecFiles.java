package io.acceld.cdi;

import io.acceld.util.AtomicFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The CDI spec files of one directory ({@code --cdi-dir}), for every publisher that writes specs
 * (the device plugin's per-resource specs, DRA's per-claim specs). Files are replaced atomically
 * and durably ({@link AtomicFiles}), so a container runtime never reads half a spec, and are
 * world-readable (0644, in a 0755 directory) whatever the umask, because the runtime reading them
 * may not run as the agent's user; a spec names device nodes, nothing secret.
 */
public final class CdiSpecFiles {
  /** The CDI spec version every spec is written in. */
  public static final String CDI_VERSION = "0.6.0";

  private final Path dir;

  public CdiSpecFiles(Path dir) {
    this.dir = Objects.requireNonNull(dir, "dir");
  }

  public Path dir() {
    return dir;
  }

  /** The path of spec file {@code fileName} (a plain name, no directory). */
  public Path file(String fileName) {
    Path file = dir.resolve(fileName);
    if (!file.getParent().equals(dir) || fileName.isEmpty() || fileName.startsWith(".")) {
      throw new IllegalArgumentException("not a plain spec file name: " + fileName);
    }
    return file;
  }

  /** Writes (or replaces) spec file {@code fileName} with {@code content}. */
  public void write(String fileName, byte[] content) throws IOException {
    AtomicFiles.createDirectories(dir, AtomicFiles.DIRECTORY_WORLD_READABLE);
    AtomicFiles.write(file(fileName), content, AtomicFiles.WORLD_READABLE);
  }

  /** Removes spec file {@code fileName}; whether it was there. */
  public boolean remove(String fileName) throws IOException {
    return Files.deleteIfExists(file(fileName));
  }

  /** The names of the spec files whose name starts with {@code prefix}; none if no directory. */
  public List<String> names(String prefix) throws IOException {
    List<String> found = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, prefix + "*")) {
      for (Path f : files) {
        found.add(f.getFileName().toString());
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    return found;
  }
}
