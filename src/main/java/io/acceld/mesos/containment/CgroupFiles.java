package io.acceld.mesos.containment;

import io.acceld.util.Backoff;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Reading and writing cgroup control files, and the bounded waits on them. cgroupfs files are
 * written with one {@code write(2)} each, which is what the kernel parses; {@link
 * Files#writeString} does that for these short values.
 */
final class CgroupFiles {
  /**
   * A cgroup's state changes (freezing, emptying after SIGKILL) take microseconds to a few
   * milliseconds: poll from 1 ms, never more often, backing off to 25 ms.
   */
  private static final Duration FIRST_POLL = Duration.ofMillis(1);

  private static final Duration MAX_POLL = Duration.ofMillis(25);

  /** How long one kill round waits for the cgroup to empty; SIGKILL takes effect in far less. */
  private static final Duration ROUND = Duration.ofMillis(250);

  private CgroupFiles() {}

  static void write(Path file, String value) throws IOException {
    try {
      Files.writeString(file, value, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IOException("cannot write '" + value + "' to " + file + ": " + e.getMessage(), e);
    }
  }

  static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.US_ASCII);
  }

  /** The pids listed in a {@code cgroup.procs}; none when the cgroup is gone. */
  static List<Integer> pids(Path procs) throws IOException {
    List<Integer> pids = new ArrayList<>();
    try {
      for (String line : read(procs).split("\n")) {
        if (!line.isBlank()) {
          pids.add(Integer.parseInt(line.strip()));
        }
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    return pids;
  }

  /** The value of {@code key} in a flat-keyed file such as {@code memory.events}. */
  static OptionalLong keyed(Path file, String key) throws IOException {
    if (!Files.exists(file)) {
      return OptionalLong.empty();
    }
    for (String line : read(file).split("\n")) {
      String[] parts = line.strip().split("\\s+");
      if (parts.length == 2 && parts[0].equals(key)) {
        return OptionalLong.of(Long.parseLong(parts[1]));
      }
    }
    return OptionalLong.empty();
  }

  /** A condition on cgroup files, which may throw while reading them. */
  @FunctionalInterface
  interface Condition {
    boolean holds() throws IOException;
  }

  /**
   * Waits until {@code condition} holds or {@code timeout} passes, polling with a backoff: cgroup
   * v1 has no notification for these states.
   *
   * @return whether it held
   */
  static boolean await(Duration timeout, Condition condition) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Backoff backoff = new Backoff(FIRST_POLL, MAX_POLL);
    while (true) {
      if (condition.holds()) {
        return true;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      try {
        Thread.sleep(Math.max(1, Math.min(backoff.next().toMillis(), left / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted waiting on a cgroup");
      }
    }
  }

  /** {@code top} and every cgroup below it, parents first. */
  static List<Path> tree(Path top) throws IOException {
    List<Path> all = new ArrayList<>();
    if (!Files.isDirectory(top)) {
      return all;
    }
    all.add(top);
    try (DirectoryStream<Path> children = Files.newDirectoryStream(top, Files::isDirectory)) {
      for (Path child : children) {
        all.addAll(tree(child));
      }
    }
    return all;
  }

  /** One round of killing what a cgroup holds. */
  @FunctionalInterface
  interface KillRound {
    void run() throws IOException;
  }

  /**
   * Kills in rounds until {@code empty} holds or {@code timeout} passes. One round is not always
   * enough: a process can join while the round runs (a launch still writing its pid into the
   * cgroups), so each round waits only briefly for the cgroup to empty before killing again.
   */
  static boolean killUntilEmpty(Duration timeout, KillRound round, Condition empty)
      throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      round.run();
      long left = deadline - System.nanoTime();
      Duration wait = Duration.ofNanos(Math.max(0, Math.min(left, ROUND.toNanos())));
      if (await(wait, empty)) {
        return true;
      }
      if (System.nanoTime() >= deadline) {
        return false;
      }
    }
  }

  /**
   * Removes a cgroup directory and any child cgroups in it, deepest first, retrying {@code rmdir}
   * for up to {@code timeout}: the kernel refuses with EBUSY until the last killed task is reaped.
   * A missing directory is already removed.
   */
  static void removeTree(Path dir, Duration timeout) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> children = Files.newDirectoryStream(dir, Files::isDirectory)) {
      for (Path child : children) {
        removeTree(child, timeout);
      }
    }
    IOException[] last = new IOException[1];
    boolean removed =
        await(
            timeout,
            () -> {
              try {
                Files.deleteIfExists(dir); // rmdir(2): cgroupfs directories hold only control files
                return true;
              } catch (IOException e) {
                last[0] = e;
                return false;
              }
            });
    if (!removed) {
      throw new IOException("cannot remove cgroup " + dir + " within " + timeout, last[0]);
    }
  }
}
