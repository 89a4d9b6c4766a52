package io.acceld.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryWatcherTest {
  /** Longer than any test: whatever the checks see comes from events, not from the poll. */
  private static final Duration NO_POLL = Duration.ofHours(1);

  private final BlockingQueue<DirectoryWatcher.Wake> checks = new LinkedBlockingQueue<>();

  /** Whether a check reported {@code name} created within {@code within}. */
  private boolean reported(String name, Duration within) throws InterruptedException {
    return awaitWake(w -> w.created().contains(name), within).isPresent();
  }

  /** The first check within {@code within} that {@code wanted} accepts. */
  private Optional<DirectoryWatcher.Wake> awaitWake(
      Predicate<DirectoryWatcher.Wake> wanted, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    for (long left = within.toNanos(); left > 0; left = deadline - System.nanoTime()) {
      DirectoryWatcher.Wake wake = checks.poll(left, TimeUnit.NANOSECONDS);
      if (wake != null && wanted.test(wake)) {
        return Optional.of(wake);
      }
    }
    return Optional.empty();
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

  @Test
  void namesOnlyTheDirectoriesWithEventsAsPossiblyChanged(@TempDir Path root) throws Exception {
    // What lets the presence monitor list /dev only when it changed, not every second.
    Path quiet = Files.createDirectory(root.resolve("quiet"));
    Path busy = Files.createDirectory(root.resolve("busy"));
    try (DirectoryWatcher w =
        DirectoryWatcher.existing("test-watch", List.of(quiet, busy), NO_POLL, checks::add)) {
      w.start();
      Files.createFile(busy.resolve("card0"));
      DirectoryWatcher.Wake wake =
          awaitWake(x -> x.created().contains("card0"), Duration.ofSeconds(10)).orElseThrow();
      assertThat(wake.mayHaveChanged()).containsExactly(busy);
    }
  }

  @Test
  void watchesADirectoryThatAppearsAfterTheStart(@TempDir Path root) throws Exception {
    // /dev/accel is made when its driver loads, after the agent started: a watch of /dev sees
    // the directory made, and the nodes made in it later must have events of their own.
    Path accel = root.resolve("accel");
    try (DirectoryWatcher w =
        DirectoryWatcher.existing("test-watch", List.of(root, accel), NO_POLL, checks::add)) {
      w.start();
      Files.createDirectory(accel);
      DirectoryWatcher.Wake made =
          awaitWake(x -> x.created().contains("accel"), Duration.ofSeconds(10)).orElseThrow();
      assertThat(made.mayHaveChanged()).contains(accel); // not watched until now: compare it
      boolean seen = false;
      // The watch is taken on the wake-up after the one that saw the directory made.
      for (int i = 0; i < 10 && !seen; i++) {
        String node = "accel" + i;
        Files.createFile(accel.resolve(node));
        seen =
            awaitWake(
                    x -> x.created().contains(node) && x.mayHaveChanged().contains(accel),
                    Duration.ofSeconds(2))
                .isPresent();
      }
      assertThat(seen).as("a node made in the new directory has its own event").isTrue();
    }
  }
}
