package io.acceld.kubelet;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls {@code check} whenever something is created or deleted in the watched directories, and at
 * least every {@code poll} as a backstop: inotify can overflow, and a directory may be replaced
 * under us. {@code check} compares state rather than interpreting events, so a missed or coalesced
 * event only delays it by one poll. Runs on its own named thread.
 */
final class DirectoryWatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DirectoryWatcher.class);

  private final WatchService watcher;
  private final Thread thread;
  private volatile boolean running = true;

  DirectoryWatcher(List<Path> dirs, Duration poll, Runnable check) throws IOException {
    this.watcher = FileSystems.getDefault().newWatchService();
    for (Path dir : dirs) {
      Files.createDirectories(dir);
      dir.register(
          watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
    }
    this.thread = new Thread(() -> loop(poll, check), "acceld-kubelet-watch");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void loop(Duration poll, Runnable check) {
    while (running) {
      try {
        WatchKey key = watcher.poll(poll.toMillis(), TimeUnit.MILLISECONDS);
        if (key != null) {
          key.pollEvents();
          key.reset();
          // Take whatever else arrived with it, so one burst (a kubelet restart) is one check.
          WatchKey more;
          while ((more = watcher.poll()) != null) {
            more.pollEvents();
            more.reset();
          }
        }
        check.run();
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
