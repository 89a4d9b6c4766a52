package io.acceld.health;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices a PCI device leaving or arriving (hot unplug, surprise removal) and a device node
 * disappearing or coming back, and asks for a rediscovery at once. It listens for file-system
 * events where they work (devtmpfs, and fixture trees) and polls the same state as a fallback
 * (sysfs sends no inotify events); the poll compares a cheap fingerprint, so nothing is rescanned
 * unless something changed.
 */
public final class PresenceMonitor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PresenceMonitor.class);

  private final Path pciDevices;
  private final Path devRoot;
  private final Runnable rediscover;
  private final Duration poll;
  private final Thread thread;
  private volatile boolean running = true;
  private WatchService watcher;

  public PresenceMonitor(Path sysfsRoot, Path devRoot, Runnable rediscover, Duration poll) {
    this.pciDevices = sysfsRoot.resolve("bus/pci/devices");
    this.devRoot = devRoot;
    this.rediscover = rediscover;
    this.poll = poll;
    this.thread = new Thread(this::loop, "acceld-presence");
    thread.setDaemon(true);
  }

  boolean alive() {
    return thread.isAlive();
  }

  public void start() {
    try {
      watcher = FileSystems.getDefault().newWatchService();
      for (Path dir :
          List.of(pciDevices, devRoot, devRoot.resolve("dri"), devRoot.resolve("accel"))) {
        if (Files.isDirectory(dir)) {
          dir.register(
              watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
        }
      }
    } catch (IOException e) {
      log.info(
          "File-system events unavailable ({}); polling every {} ms",
          e.toString(),
          poll.toMillis());
    }
    thread.start();
  }

  private void loop() {
    String last = fingerprint();
    while (running) {
      try {
        if (watcher != null) {
          WatchKey key = watcher.poll(poll.toMillis(), TimeUnit.MILLISECONDS);
          while (key != null) {
            key.pollEvents();
            key.reset();
            key = watcher.poll();
          }
        } else {
          Thread.sleep(poll.toMillis());
        }
        String now = fingerprint();
        if (!now.equals(last)) {
          last = now;
          log.info("PCI devices or device nodes changed; rediscovering");
          rediscover.run();
        }
      } catch (InterruptedException | ClosedWatchServiceException e) {
        return;
      } catch (RuntimeException e) {
        log.error("Presence check failed", e);
      }
    }
  }

  /** PCI addresses present, and the device nodes present where accelerators put theirs. */
  String fingerprint() {
    StringBuilder f = new StringBuilder();
    for (Path dir :
        List.of(
            pciDevices,
            devRoot,
            devRoot.resolve("dri"),
            devRoot.resolve("accel"),
            devRoot.resolve("vfio"))) {
      TreeSet<String> names = new TreeSet<>();
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
        entries.forEach(p -> names.add(p.getFileName().toString()));
      } catch (IOException e) {
        // absent directory: an empty listing
      }
      f.append(names).append('|');
    }
    return f.toString();
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    if (watcher != null) {
      try {
        watcher.close();
      } catch (IOException e) {
        log.debug("Closing the watch service: {}", e.toString());
      }
    }
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
