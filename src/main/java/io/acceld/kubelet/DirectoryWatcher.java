package io.acceld.kubelet;

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
 * least every {@code poll} as a backstop: inotify can overflow, and a directory may be replaced
 * under us. {@code check} gets the names created since the last call (a file re-created with a
 * reused inode is only visible as an event) and otherwise compares state, so a missed or coalesced
 * event only delays it by one poll. Runs on its own named thread.
 */
final class DirectoryWatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DirectoryWatcher.class);

  private final WatchService watcher;
  private final Thread thread;
  private volatile boolean running = true;

  DirectoryWatcher(List<Path> dirs, Duration poll, Consumer<Set<String>> check) throws IOException {
    this.watcher = FileSystems.getDefault().newWatchService();
    for (Path dir : dirs) {
      Files.createDirectories(dir);
      dir.register(
          watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
    }
    this.thread = new Thread(() -> loop(poll, check), "acceld-kubelet-watch");
    thread.setDaemon(true);
  }

  boolean alive() {
    return thread.isAlive();
  }

  void start() {
    thread.start();
  }

  private void loop(Duration poll, Consumer<Set<String>> check) {
    while (running) {
      try {
        Set<String> created = new HashSet<>();
        WatchKey key = watcher.poll(poll.toMillis(), TimeUnit.MILLISECONDS);
        // Take whatever else arrived with it, so one burst (a kubelet restart) is one check.
        while (key != null) {
          for (WatchEvent<?> event : key.pollEvents()) {
            if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) {
              created.add(event.context().toString());
            }
          }
          key.reset();
          key = watcher.poll();
        }
        check.accept(created);
      } catch (InterruptedException | ClosedWatchServiceException e) {
        return;
      } catch (RuntimeException e) {
        log.error("Socket check failed", e);
      }
    }
  }

  @Override
  public void close() {
    running = false;
    try {
      watcher.close();
    } catch (IOException e) {
      log.debug("Closing the watch service: {}", e.toString());
    }
    thread.interrupt();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
