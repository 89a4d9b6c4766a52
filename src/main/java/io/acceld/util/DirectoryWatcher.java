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
import java.util.ArrayList;
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
 * us, and some file systems (sysfs) send no events at all. {@code check} gets the names created
 * since the last call (a file re-created with a reused inode is only visible as an event) and
 * otherwise compares state, so a missed or coalesced event only delays it by one poll. Runs on its
 * own named thread.
 *
 * <p>A watched directory that is removed (and perhaps made again) loses its watch; until it can be
 * watched again the watcher checks every {@link #REWATCH} instead of every poll, and watches it
 * again as soon as it exists, so a long backstop poll never becomes the only way to notice.
 */
public final class DirectoryWatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DirectoryWatcher.class);

  /** How often a watcher that lost a directory's watch checks, and tries to watch it again. */
  static final Duration REWATCH = Duration.ofSeconds(1);

  private final WatchService watcher; // null when events are unavailable: poll only
  private final List<Path> dirs;
  private final Duration poll;

  /** A directory's watch was cancelled (it was removed); confined to the watcher's thread. */
  private boolean lostWatch;

  private final Consumer<Set<String>> check;
  private final Thread thread;
  private volatile boolean running = true;

  private DirectoryWatcher(
      String threadName,
      WatchService watcher,
      List<Path> dirs,
      Duration poll,
      Consumer<Set<String>> check) {
    this.watcher = watcher;
    this.dirs = List.copyOf(dirs);
    this.poll = poll;
    this.check = check;
    this.thread = new Thread(this::loop, threadName);
    thread.setDaemon(true);
  }

  /** Watches {@code dirs}, creating them first; fails if they cannot be created or watched. */
  public static DirectoryWatcher creating(
      String threadName, List<Path> dirs, Duration poll, Consumer<Set<String>> check)
      throws IOException {
    WatchService watcher = FileSystems.getDefault().newWatchService();
    for (Path dir : dirs) {
      Files.createDirectories(dir);
      register(watcher, dir);
    }
    return new DirectoryWatcher(threadName, watcher, dirs, poll, check);
  }

  /**
   * Watches those of {@code dirs} that exist and accept a watch; with none, or no inotify at all,
   * it only polls. Never fails: the poll alone is correct, events only make it faster.
   */
  public static DirectoryWatcher existing(
      String threadName, List<Path> dirs, Duration poll, Consumer<Set<String>> check) {
    WatchService watcher = null;
    List<Path> watched = new ArrayList<>();
    try {
      watcher = FileSystems.getDefault().newWatchService();
      for (Path dir : dirs) {
        if (Files.isDirectory(dir)) {
          register(watcher, dir);
          watched.add(dir);
        }
      }
    } catch (IOException e) {
      log.info(
          "File-system events unavailable ({}); polling every {} ms",
          e.toString(),
          poll.toMillis());
    }
    // Only what was watched is watched again after a loss; the rest is the poll's.
    return new DirectoryWatcher(threadName, watcher, watched, poll, check);
  }

  private static void register(WatchService watcher, Path dir) throws IOException {
    dir.register(
        watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
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
  private Set<String> awaitEvents() throws InterruptedException {
    Set<String> created = new HashSet<>();
    if (watcher == null) {
      Thread.sleep(poll.toMillis());
      return created;
    }
    if (lostWatch) {
      lostWatch = !watchAgain();
    }
    Duration wait = lostWatch && REWATCH.compareTo(poll) < 0 ? REWATCH : poll;
    WatchKey key = watcher.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
    while (key != null) {
      for (WatchEvent<?> event : key.pollEvents()) {
        if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) {
          created.add(event.context().toString());
        }
      }
      if (!key.reset()) {
        lostWatch = true;
      }
      key = watcher.poll();
    }
    return created;
  }

  /**
   * Watches every directory that exists again (a live watch is kept as it is); true if none is
   * still missing. A directory made again between the loss and now shows in the check that follows,
   * which compares state.
   */
  private boolean watchAgain() {
    boolean all = true;
    for (Path dir : dirs) {
      try {
        register(watcher, dir);
      } catch (IOException e) {
        all = false;
      }
    }
    if (all) {
      log.debug("{} watches {} again", thread.getName(), dirs);
    }
    return all;
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
