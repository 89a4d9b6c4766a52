package io.acceld.util;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls {@code check} whenever something is created or deleted in the watched directories, and at
 * least every {@code poll} as a backstop: inotify can overflow, a directory may be replaced under
 * us, and some file systems (sysfs) send no events at all. Each check is told the names created
 * since the last one (a file re-created with a reused inode is only visible as an event) and which
 * directories may have changed; it compares their state, so a missed or coalesced event only delays
 * it by one poll. Runs on its own named thread.
 *
 * <p>A directory not under a live watch (absent at start, or removed and perhaps made again) is
 * reported as possibly changed on every wake-up and watched as soon as it exists; while a watch
 * that was lost is not back, the watcher wakes every {@link #REWATCH} instead of every poll, so a
 * long backstop poll never becomes the only way to notice.
 */
public final class DirectoryWatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DirectoryWatcher.class);

  /** How often a watcher that lost a directory's watch checks, and tries to watch it again. */
  static final Duration REWATCH = Duration.ofSeconds(1);

  /**
   * What a check is told.
   *
   * @param created names created in any watched directory since the last check
   * @param mayHaveChanged the directories whose state the check must compare: those with events,
   *     and those that were not under a live watch (absent, lost, or watched again just now); a
   *     directory left out had no event while it was watched, so it is as it was
   */
  public record Wake(Set<String> created, Set<Path> mayHaveChanged) {
    public Wake {
      created = Set.copyOf(created);
      mayHaveChanged = Set.copyOf(mayHaveChanged);
    }
  }

  private final WatchService watcher; // null when events are unavailable: poll only
  private final List<Path> dirs;
  private final Duration poll;

  /** The directories under a live watch; confined to the watcher's thread once started. */
  private final Set<Path> live;

  /** Directories whose watch was cancelled (removed) and is not back; the thread's alone. */
  private final Set<Path> lost = new HashSet<>();

  private final Consumer<Wake> check;
  private final Thread thread;
  private volatile boolean running = true;

  private DirectoryWatcher(
      String threadName,
      WatchService watcher,
      List<Path> dirs,
      Set<Path> live,
      Duration poll,
      Consumer<Wake> check) {
    this.watcher = watcher;
    this.dirs = List.copyOf(dirs);
    this.live = new HashSet<>(live);
    this.poll = poll;
    this.check = check;
    this.thread = new Thread(this::loop, threadName);
    thread.setDaemon(true);
  }

  /** Watches {@code dirs}, creating them first; fails if they cannot be created or watched. */
  public static DirectoryWatcher creating(
      String threadName, List<Path> dirs, Duration poll, Consumer<Wake> check) throws IOException {
    WatchService watcher = FileSystems.getDefault().newWatchService();
    for (Path dir : dirs) {
      Files.createDirectories(dir);
      register(watcher, dir);
    }
    return new DirectoryWatcher(threadName, watcher, dirs, Set.copyOf(dirs), poll, check);
  }

  /**
   * Watches those of {@code dirs} that exist and accept a watch, and the others once they exist;
   * with no inotify at all it only polls. Never fails: the poll alone is correct, events only make
   * it faster.
   */
  public static DirectoryWatcher existing(
      String threadName, List<Path> dirs, Duration poll, Consumer<Wake> check) {
    WatchService watcher = null;
    Set<Path> watched = new HashSet<>();
    try {
      watcher = FileSystems.getDefault().newWatchService();
      for (Path dir : dirs) {
        if (tryRegister(watcher, dir)) {
          watched.add(dir);
        }
      }
    } catch (IOException e) {
      log.info(
          "File-system events unavailable ({}); polling every {} ms",
          e.toString(),
          poll.toMillis());
    }
    return new DirectoryWatcher(threadName, watcher, dirs, watched, poll, check);
  }

  private static void register(WatchService watcher, Path dir) throws IOException {
    dir.register(
        watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
  }

  /**
   * Watches {@code dir} if it is a directory now. The check goes through {@link java.io.File}: it
   * runs on every wake-up for a directory that does not exist (a node without {@code /dev/accel}),
   * and NIO would build and throw an exception each time to say so.
   */
  private static boolean tryRegister(WatchService watcher, Path dir) {
    if (!dir.toFile().isDirectory()) {
      return false;
    }
    try {
      register(watcher, dir);
      return true;
    } catch (IOException e) {
      return false; // removed meanwhile, or out of watches: compared on every wake-up instead
    }
  }

  public boolean alive() {
    return thread.isAlive();
  }

  public void start() {
    thread.start();
  }

  private void loop() {
    while (running) {
      try {
        check.accept(awaitEvents());
      } catch (InterruptedException | ClosedWatchServiceException e) {
        return;
      } catch (RuntimeException e) {
        log.error("{} check failed", thread.getName(), e);
      }
    }
  }

  /** Waits up to one poll for events, then takes whatever else arrived, so a burst is one check. */
  private Wake awaitEvents() throws InterruptedException {
    Set<String> created = new HashSet<>();
    if (watcher == null) {
      Thread.sleep(poll.toMillis());
      return new Wake(created, Set.copyOf(dirs));
    }
    // Not watched at the start of this round: what happened there shows only by comparing,
    // including in a directory that is watched again below.
    Set<Path> mayHaveChanged = new HashSet<>();
    for (Path dir : dirs) {
      if (!live.contains(dir)) {
        mayHaveChanged.add(dir);
        if (tryRegister(watcher, dir)) {
          live.add(dir);
          lost.remove(dir);
          log.debug("{} watches {}", thread.getName(), dir);
        }
      }
    }
    Duration wait = !lost.isEmpty() && REWATCH.compareTo(poll) < 0 ? REWATCH : poll;
    WatchKey key = watcher.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
    while (key != null) {
      Path dir = (Path) key.watchable();
      mayHaveChanged.add(dir);
      for (WatchEvent<?> event : key.pollEvents()) {
        if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) {
          created.add(event.context().toString());
        }
      }
      if (!key.reset()) {
        live.remove(dir);
        lost.add(dir);
      }
      key = watcher.poll();
    }
    return new Wake(created, mayHaveChanged);
  }

  @Override
  public void close() {
    running = false;
    if (watcher != null) {
      try {
        watcher.close();
      } catch (IOException e) {
        log.debug("Closing the watch service: {}", e.toString());
      }
    }
    thread.interrupt();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
