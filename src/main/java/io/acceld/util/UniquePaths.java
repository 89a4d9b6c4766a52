package io.acceld.util;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * New files and directories under names nothing else holds ({@code prefix<random>suffix}), made
 * exclusively: the creation fails if the name exists, and another name is tried.
 *
 * <p>The JDK's {@code Files.createTemp*} do the same with a {@code SecureRandom}, whose first use
 * loads the security providers (~110 classes, 0.3 MB of every node's class-data archive and RSS)
 * for a name in a directory that is the agent's own. An unpredictable name buys nothing there: the
 * exclusive creation is what keeps another file from being taken for ours.
 */
public final class UniquePaths {
  /** Names tried before giving up: only a directory full of our names runs out. */
  static final int ATTEMPTS = 100;

  /** Creates what is at one path, failing with {@link FileAlreadyExistsException} if it exists. */
  @FunctionalInterface
  public interface Creation<T> {
    T create(Path path) throws IOException;
  }

  private UniquePaths() {}

  /**
   * What {@code creation} made at the first free {@code dir/prefix<random>suffix}.
   *
   * @throws FileAlreadyExistsException if {@value #ATTEMPTS} names were all taken
   * @throws IOException whatever else {@code creation} throws
   */
  public static <T> T create(Path dir, String prefix, String suffix, Creation<T> creation)
      throws IOException {
    FileAlreadyExistsException taken = null;
    for (int i = 0; i < ATTEMPTS; i++) {
      String random = Long.toUnsignedString(ThreadLocalRandom.current().nextLong());
      try {
        return creation.create(dir.resolve(prefix + random + suffix));
      } catch (FileAlreadyExistsException e) {
        taken = e;
      }
    }
    throw taken;
  }
}
