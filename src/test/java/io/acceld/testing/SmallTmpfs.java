package io.acceld.testing;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real, small tmpfs mounted on a test's directory, so a state directory can fill up or turn
 * read-only: no unprivileged way to fill a file system exists here (no FUSE, no quota, no user
 * namespaces in CI). Mounting needs root. The agent's CI runs as root and a test fails there if it
 * cannot mount; elsewhere it is skipped, so the check cannot silently vanish from CI.
 */
public final class SmallTmpfs implements AutoCloseable {
  private final Path dir;

  private SmallTmpfs(Path dir) {
    this.dir = dir;
  }

  /**
   * Mounts a tmpfs of {@code size} (mount's syntax: {@code 64k}) on {@code dir}, made if absent.
   */
  public static SmallTmpfs mount(Path dir, String size) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    if (!run(
        "mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700", "tmpfs", dir.toString())) {
      if (System.getenv("CI") != null) {
        fail("cannot mount a tmpfs on " + dir + "; CI runs as root and must be able to");
      }
      assumeTrue(false, "needs root to mount a small tmpfs");
    }
    return new SmallTmpfs(dir);
  }

  public Path dir() {
    return dir;
  }

  /** Fills the file system to the last byte; returns the file to delete to free it. */
  public Path fill() throws IOException {
    Path filler = dir.resolve("filler");
    try (OutputStream out = Files.newOutputStream(filler)) {
      byte[] block = new byte[512];
      while (true) {
        out.write(block);
        out.flush();
      }
    } catch (IOException full) {
      return filler;
    }
  }

  /** Remounts it read-only ({@code true}) or read-write; true if mount succeeded. */
  public boolean readOnly(boolean readOnly) throws IOException, InterruptedException {
    return run("mount", "-o", readOnly ? "remount,ro" : "remount,rw", dir.toString());
  }

  @Override
  public void close() throws IOException, InterruptedException {
    run("umount", "-l", dir.toString());
  }

  private static boolean run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
  }
}
