package io.acceld.health;

import io.acceld.util.DirectoryWatcher;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices a PCI device leaving or arriving (hot unplug, surprise removal) and a device node
 * disappearing or coming back, and asks for a rediscovery at once. The device-node directories are
 * watched for file-system events (devtmpfs sends them) and compared only when an event came or no
 * watch stands for them; the PCI bus is compared on every poll, since sysfs sends no events. Each
 * comparison is of the directory's names, so nothing is rescanned unless something changed.
 */
public final class PresenceMonitor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PresenceMonitor.class);

  /** Where a PCI device's arrival or departure shows; listed on every poll. */
  private final Path pciBus;

  /** Where device nodes appear; listed when their watch says so. */
  private final List<Path> nodeDirs;

  private final Runnable rediscover;
  private final DirectoryWatcher watcher;

  /** Each directory's names as last listed; the watcher's thread's alone once started. */
  private final Map<Path, String[]> last = new HashMap<>();

  public PresenceMonitor(Path sysfsRoot, Path devRoot, Runnable rediscover, Duration poll) {
    this.pciBus = sysfsRoot.resolve("bus/pci/devices");
    this.nodeDirs =
        List.of(devRoot, devRoot.resolve("dri"), devRoot.resolve("accel"), devRoot.resolve("vfio"));
    this.rediscover = rediscover;
    this.watcher = DirectoryWatcher.existing("acceld-presence", nodeDirs, poll, this::check);
  }

  boolean alive() {
    return watcher.alive();
  }

  public void start() {
    changed(pciBus); // each directory's first listing is what later ones are compared with
    nodeDirs.forEach(this::changed);
    watcher.start();
  }

  private void check(DirectoryWatcher.Wake wake) {
    List<Path> changed = new ArrayList<>(1);
    if (changed(pciBus)) {
      changed.add(pciBus);
    }
    for (Path dir : nodeDirs) {
      if (wake.mayHaveChanged().contains(dir) && changed(dir)) {
        changed.add(dir);
      }
    }
    if (!changed.isEmpty()) {
      log.info("PCI devices or device nodes changed in {}; rediscovering", changed);
      rediscover.run();
    }
  }

  /**
   * Lists {@code dir} and remembers it; true if its names differ from the last listing. The listing
   * order of an unchanged directory is the same from one call to the next (sysfs, tmpfs), so the
   * common case is one array comparison; only listings that differ are sorted, so that a mere
   * change of order is not taken for a change.
   */
  private boolean changed(Path dir) {
    String[] now = names(dir);
    String[] before = last.put(dir, now);
    if (Arrays.equals(now, before)) {
      return false;
    }
    return before == null || !Arrays.equals(sorted(now), sorted(before));
  }

  /**
   * The names in {@code dir}; none if it is absent. {@link java.io.File#list()} rather than NIO:
   * this runs every second, and for an absent directory ({@code /dev/accel} on most nodes) NIO
   * builds and throws an exception to say so, where {@code list()} returns null.
   */
  private static String[] names(Path dir) {
    String[] names = dir.toFile().list();
    return names == null ? new String[0] : names;
  }

  private static String[] sorted(String[] names) {
    String[] copy = names.clone();
    Arrays.sort(copy);
    return copy;
  }

  @Override
  public void close() {
    watcher.close();
  }
}
