package io.acceld.labels;

import io.acceld.util.AtomicFiles;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Keeps one feature file equal to the rendered labels, writing it only when its content changes:
 * inventory changes that labels do not show (health flips, mostly) cost no I/O, and NFD, which
 * watches the directory, is not woken for nothing. The first sync compares with the file on disk,
 * so an agent restart leaves an up-to-date file alone.
 *
 * <p>Every write replaces the file atomically ({@link AtomicFiles}: a temporary {@code .acceld.*}
 * file in the same directory, which NFD skips as a dot-file, renamed over the target), so NFD never
 * reads half a file.
 */
final class FeatureFileSync {
  private final Path file;

  /** What the file holds, as far as this object wrote or read it; null when unknown. */
  @GuardedBy("this")
  private byte[] onDisk;

  @GuardedBy("this")
  private long writes;

  FeatureFileSync(Path file) {
    this.file = file;
  }

  Path file() {
    return file;
  }

  /**
   * Makes the file hold {@code content}.
   *
   * @return whether it was written
   * @throws IOException if it could not be; the file then keeps its previous content
   */
  synchronized boolean sync(byte[] content) throws IOException {
    if (onDisk == null) {
      onDisk = readExisting();
    }
    if (Arrays.equals(onDisk, content)) {
      return false;
    }
    try {
      AtomicFiles.write(file, content, AtomicFiles.WORLD_READABLE);
    } catch (IOException e) {
      onDisk = null; // unknown now: compare with the disk again next time
      throw e;
    }
    onDisk = content.clone();
    writes++;
    return true;
  }

  /** How many times this object has written the file. */
  synchronized long writes() {
    return writes;
  }

  private byte[] readExisting() {
    try {
      if (!Files.getPosixFilePermissions(file).equals(AtomicFiles.WORLD_READABLE)) {
        return null; // rewrite it 0644: NFD's worker may run as another user
      }
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      return null; // unreadable: rewriting it is the way to know it is right
    }
  }
}
