package io.acceld.doctor;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the agent could write in a directory, asked without writing: {@code access(2)}, which
 * also answers no on a read-only mount. A directory that does not exist yet passes when the agent
 * could create it, under the nearest ancestor that does.
 */
final class Writable {
  private Writable() {}

  static Finding check(String check, String subject, Path dir, String fix) {
    if (Files.isDirectory(dir)) {
      return Files.isWritable(dir)
          ? Finding.pass(check, subject, dir + " exists and is writable")
          : Finding.fail(check, subject, dir + " is not writable (read-only mount?)", fix);
    }
    if (Files.exists(dir)) {
      return Finding.fail(check, subject, dir + " is not a directory", "remove it; " + fix);
    }
    Path ancestor = dir.toAbsolutePath().getParent();
    while (ancestor != null && !Files.isDirectory(ancestor)) {
      ancestor = ancestor.getParent();
    }
    if (ancestor != null && Files.isWritable(ancestor)) {
      return Finding.pass(
          check,
          subject,
          dir + " does not exist yet; the agent creates it (" + ancestor + " is writable)");
    }
    return Finding.fail(
        check,
        subject,
        dir
            + " does not exist and cannot be created"
            + (ancestor == null ? "" : " (" + ancestor + " is not writable)"),
        fix);
  }
}
