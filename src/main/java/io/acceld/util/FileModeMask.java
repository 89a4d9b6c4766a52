package io.acceld.util;

import com.sun.jna.Library;
import com.sun.jna.Native;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's file-mode creation mask. The agent runs with {@code 077}, as a daemon should, so
 * that no file or socket it creates is ever readable or writable by other users, whatever umask it
 * was started with, not even for the instant between creating a socket and changing its mode (a
 * connection accepted in that instant would outlive the change). Files others must read (CDI specs)
 * are given their mode explicitly ({@link AtomicFiles}).
 */
public final class FileModeMask {
  private static final Logger log = LoggerFactory.getLogger(FileModeMask.class);

  /** Owner only: group and others get nothing. */
  public static final int OWNER_ONLY = 0077;

  private interface LibC extends Library {
    int umask(int mask);
  }

  private FileModeMask() {}

  /**
   * Sets the mask for the whole process; call once, at start, before any file is created.
   *
   * @return the previous mask, or -1 if it could not be set (then explicit modes still apply)
   */
  public static int restrict(int mask) {
    try {
      LibC libc = Native.load("c", LibC.class);
      int previous = libc.umask(mask);
      if (previous != mask) {
        log.debug(
            "File-mode mask {} (was {})",
            Integer.toOctalString(mask),
            Integer.toOctalString(previous));
      }
      return previous;
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      log.warn("Cannot set the file-mode mask ({}); relying on explicit modes", e.toString());
      return -1;
    }
  }
}
