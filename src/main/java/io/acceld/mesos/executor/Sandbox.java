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
 * A container's directory: where its process runs and writes {@code stdout} and {@code stderr}.
 * Owner-only whatever the umask: a task's output and environment are nobody else's business. Named
 * by the container ID the agent made up, never by a client's ID, so no framework or task ID ends up
 * in a path.
 *
 * <p>The wrapper's exit status (so that an exit is known even when the agent was not the process's
 * parent, after a restart) is NOT in the sandbox: the wrapper writes it as root, and the sandbox
 * belongs to the task's user once it is chowned, who could put a symlink there and have root write
 * anywhere. It goes to {@code exits/<container-id>} beside {@code sandboxes/}, a directory only the
 * agent can write, found from the sandbox's path alone so that recovery needs nothing new.
 */
record Sandbox(Path dir) {
  static final String STDOUT = "stdout";
  static final String STDERR = "stderr";

  /** The agent's own directory of exit statuses, a sibling of the sandboxes' directory. */
  static final String EXITS = "exits";

  /** Where agents before the move kept the status; read only, for tasks they started. */
  static final String LEGACY_EXIT_STATUS = ".acceld-exit-status";

  /** Creates {@code root/containerId} with empty {@code stdout} and {@code stderr} files. */
  static Sandbox create(Path root, String containerId) throws IOException {
    AtomicFiles.createDirectories(root, AtomicFiles.DIRECTORY_OWNER_ONLY);
    AtomicFiles.createDirectories(exits(root), AtomicFiles.DIRECTORY_OWNER_ONLY);
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

  /** Written by the wrapper (root), in a directory the task cannot write; see the class doc. */
  Path exitStatusFile() {
    return exits(dir.getParent()).resolve(dir.getFileName().toString());
  }

  private static Path exits(Path sandboxes) {
    return sandboxes.resolveSibling(EXITS);
  }

  /** Removes the recorded exit status once the container's end has been reported. */
  void forgetExitStatus() {
    try {
      Files.deleteIfExists(exitStatusFile());
    } catch (IOException e) {
      // a stale status of an ended container is harmless: its id is never used again
    }
  }

  /**
   * The status the wrapper recorded, if it lived to record one (it does not when it was killed
   * itself, by SIGKILL or a reboot). Anything but a number 0..255 counts as none: the task can
   * write its own sandbox.
   */
  Optional<Integer> exitStatus() {
    Optional<Integer> status = readStatus(exitStatusFile());
    return status.isPresent() ? status : readStatus(dir.resolve(LEGACY_EXIT_STATUS));
  }

  private static Optional<Integer> readStatus(Path file) {
    try {
      // Never through a link the task put there: the agent may read what the task cannot.
      byte[] bytes;
      try (var in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
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
