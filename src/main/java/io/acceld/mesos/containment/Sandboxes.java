package io.acceld.mesos.containment;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Gives a task's sandbox to the user it runs as, as Mesos's agent does before launching. */
public final class Sandboxes {
  private Sandboxes() {}

  /**
   * Changes the owner and group of {@code sandbox} and everything in it to {@code user}'s uid and
   * primary gid. Symlinks are changed themselves ({@code lchown}) and never followed, so a link
   * placed in the sandbox cannot make the agent give away a file outside it.
   */
  public static void chownTo(Path sandbox, UserIdentity user) throws IOException {
    if (Files.isSymbolicLink(sandbox) || !Files.isDirectory(sandbox)) {
      throw new IOException("sandbox " + sandbox + " is not a directory");
    }
    Files.walkFileTree(
        sandbox,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            own(dir);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            own(file);
            return FileVisitResult.CONTINUE;
          }

          private void own(Path path) throws IOException {
            Files.setAttribute(path, "unix:uid", user.uid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(path, "unix:gid", user.gid(), LinkOption.NOFOLLOW_LINKS);
          }
        });
  }
}
