package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryWatcherTest {
  /** Longer than any test: whatever the checks see comes from events, not from the poll. */
  private static final Duration NO_POLL = Duration.ofHours(1);

  private final BlockingQueue<Set<String>> checks = new LinkedBlockingQueue<>();

  /** Whether a check reported {@code name} created within {@code within}. */
  private boolean reported(String name, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    for (long left = within.toNanos(); left > 0; left = deadline - System.nanoTime()) {
      Set<String> created = checks.poll(left, TimeUnit.NANOSECONDS);
      if (created != null && created.contains(name)) {
        return true;
      }
    }
    return false;
  }

  /** A started watcher of {@code dir} (made if missing) whose checks go to {@link #checks}. */
  private DirectoryWatcher watching(Path dir) throws Exception {
    DirectoryWatcher w =
        DirectoryWatcher.creating("test-watch", List.of(dir), NO_POLL, checks::add);
    w.start();
    return w;
  }

  @Test
  void reportsACreatedNameAtOnceWithoutWaitingForThePoll(@TempDir Path root) throws Exception {
    Path dir = root.resolve("device-plugins");
    try (DirectoryWatcher w = watching(dir)) {
      Files.createFile(dir.resolve("kubelet.sock"));
      assertThat(reported("kubelet.sock", Duration.ofSeconds(10))).isTrue();
    }
  }

  @Test
  void watchesADirectoryAgainAfterItIsRemovedAndMadeAgain(@TempDir Path root) throws Exception {
    // A lost watch used to leave only the poll: with a long backstop, a kubelet restart in a
    // re-made directory would go unseen for that long.
    Path dir = root.resolve("device-plugins");
    try (DirectoryWatcher w = watching(dir)) {
      Files.delete(dir);
      Files.createDirectory(dir);
      boolean seen = false;
      // A name made before the watch is back has no event; the next one does.
      for (int i = 0; i < 10 && !seen; i++) {
        Files.createFile(dir.resolve("kubelet.sock." + i));
        seen = reported("kubelet.sock." + i, DirectoryWatcher.REWATCH.multipliedBy(2));
      }
      assertThat(seen).as("a creation in the re-made directory is reported").isTrue();
    }
  }
}
