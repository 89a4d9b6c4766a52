package io.acceld.health;

import io.acceld.util.DirectoryWatcher;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
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

  /** Where a device's arrival or departure shows: the PCI bus, and the device-node directories. */
  private final List<Path> watched;

  private final Runnable rediscover;
  private final DirectoryWatcher watcher;
  private String last;

  public PresenceMonitor(Path sysfsRoot, Path devRoot, Runnable rediscover, Duration poll) {
    this.watched =
        List.of(
            sysfsRoot.resolve("bus/pci/devices"),
            devRoot,
            devRoot.resolve("dri"),
            devRoot.resolve("accel"),
            devRoot.resolve("vfio"));
    this.rediscover = rediscover;
    this.watcher = DirectoryWatcher.existing("acceld-presence", watched, poll, created -> check());
  }

  boolean alive() {
    return watcher.alive();
  }

  public void start() {
    last = fingerprint();
    watcher.start();
  }

  private void check() {
    String now = fingerprint();
    if (!now.equals(last)) {
      last = now;
      log.info("PCI devices or device nodes changed; rediscovering");
      rediscover.run();
    }
  }

  /** The names in each watched directory: PCI addresses present, device nodes present. */
  String fingerprint() {
    StringBuilder f = new StringBuilder();
    for (Path dir : watched) {
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
    watcher.close();
  }
}
