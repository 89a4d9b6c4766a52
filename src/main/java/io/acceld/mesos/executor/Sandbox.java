package io.acceld.mesos.executor;

import io.acceld.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * A container's directory: where its process runs, writes {@code stdout} and {@code stderr}, and
 * where the wrapper leaves the exit status (so that an exit is known even when the agent was not
 * the process's parent, after a restart). Owner-only whatever the umask: a task's output and
 * environment are nobody else's business. Named by the container ID the agent made up, never by a
 * client's ID, so no framework or task ID ends up in a path.
 */
record Sandbox(Path dir) {
  static final String STDOUT = "stdout";
  static final String STDERR = "stderr";

  /** Hidden, so that a task listing its sandbox sees its own files first. */
  static final String EXIT_STATUS = ".acceld-exit-status";

  /** Creates {@code root/containerId} with empty {@code stdout} and {@code stderr} files. */
  static Sandbox create(Path root, String containerId) throws IOException {
    AtomicFiles.createDirectories(root, AtomicFiles.DIRECTORY_OWNER_ONLY);
    Path dir = root.resolve(containerId);
    Files.createDirectory(
        dir, PosixFilePermissions.asFileAttribute(AtomicFiles.DIRECTORY_OWNER_ONLY));
    Files.setPosixFilePermissions(dir, AtomicFiles.DIRECTORY_OWNER_ONLY);
    Sandbox sandbox = new Sandbox(dir);
    for (Path file : new Path[] {sandbox.stdout(), sandbox.stderr()}) {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(AtomicFiles.OWNER_ONLY));
      Files.setPosixFilePermissions(file, AtomicFiles.OWNER_ONLY);
    }
    return sandbox;
  }

  Path stdout() {
    return dir.resolve(STDOUT);
  }

  Path stderr() {
    return dir.resolve(STDERR);
  }

  Path exitStatusFile() {
    return dir.resolve(EXIT_STATUS);
  }

  /**
   * The status the wrapper recorded, if it lived to record one (it does not when it was killed
   * itself, by SIGKILL or a reboot). Anything but a number 0..255 counts as none: the task can
   * write its own sandbox.
   */
  Optional<Integer> exitStatus() {
    try {
      // Never through a link the task put there: the agent may read what the task cannot.
      byte[] bytes;
      try (var in = Files.newInputStream(exitStatusFile(), LinkOption.NOFOLLOW_LINKS)) {
        bytes = in.readNBytes(16);
      }
      String text = new String(bytes, StandardCharsets.US_ASCII).trim();
      if (text.length() > 3 || !text.matches("[0-9]+")) {
        return Optional.empty();
      }
      int status = Integer.parseInt(text);
      return status <= 255 ? Optional.of(status) : Optional.empty();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
