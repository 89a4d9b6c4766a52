package io.acceld.kubelet;

import io.acceld.inventory.Device;
import io.acceld.util.AtomicFiles;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one CDI spec file per resource in step with the resource's physical devices, writing a file
 * only when its rendered content changes. Health flips, which change the inventory often and the
 * spec never, therefore cost no file I/O; a rewrite (fsync and rename) happens on hot-plug only. On
 * the first sync of a resource the file on disk is compared too, so an agent restart leaves an
 * up-to-date spec alone (unless its mode is not 0644).
 *
 * <p>Failures are logged, never thrown: a spec that cannot be written must not stop the devices
 * being advertised. The next change retries.
 */
final class CdiSpecSync {
  private static final Logger log = LoggerFactory.getLogger(CdiSpecSync.class);

  private final CdiSpecWriter writer;

  /** What each resource's file holds, as far as this object wrote or read it. */
  @GuardedBy("this")
  private final Map<String, byte[]> onDisk = new HashMap<>();

  @GuardedBy("this")
  private long writes;

  CdiSpecSync(CdiSpecWriter writer) {
    this.writer = writer;
  }

  /**
   * Makes the spec of {@code resource} describe {@code devices} (physical devices, each once); with
   * none, removes it.
   *
   * @return whether the file was (re)written
   */
  synchronized boolean sync(String resource, List<Device> devices) {
    if (devices.isEmpty()) {
      // A resource advertised with no device (all gone, or a broken single MIG strategy) has no
      // spec: a runtime has nothing to resolve from it, and some refuse a spec without devices.
      remove(resource);
      return false;
    }
    byte[] rendered = writer.render(resource, devices);
    byte[] current = onDisk.computeIfAbsent(resource, this::readExisting);
    if (Arrays.equals(rendered, current)) {
      return false;
    }
    try {
      writer.write(resource, rendered);
      onDisk.put(resource, rendered);
      writes++;
      return true;
    } catch (IOException e) {
      onDisk.remove(resource); // unknown now: compare with the disk again next time
      log.error("Cannot write the CDI spec of {}: {}", resource, e.toString());
      return false;
    }
  }

  /**
   * Compares the spec of {@code resource} on disk with what it should be, and rewrites it if it is
   * missing, changed or not 0644: another process (a second agent, an operator) may have touched
   * it, and the runtime resolves the CDI names Allocate returns from it.
   *
   * @return whether the file was rewritten
   */
  synchronized boolean verify(String resource, List<Device> devices) {
    onDisk.remove(resource);
    boolean rewritten = sync(resource, devices);
    if (rewritten) {
      log.warn(
          "The CDI spec {} was missing or changed on disk; rewrote it", writer.specFile(resource));
    }
    return rewritten;
  }

  /** Removes the spec of {@code resource} (its last device went away, or the agent stops). */
  synchronized void remove(String resource) {
    if (onDisk.remove(resource) == null && !Files.exists(writer.specFile(resource))) {
      return;
    }
    try {
      writer.remove(resource);
    } catch (IOException e) {
      log.warn("Cannot remove the CDI spec of {}: {}", resource, e.toString());
    }
  }

  /** How many files this object has written: a health flip must not add one. */
  synchronized long writes() {
    return writes;
  }

  private byte[] readExisting(String resource) {
    Path file = writer.specFile(resource);
    try {
      if (!Files.getPosixFilePermissions(file).equals(AtomicFiles.WORLD_READABLE)) {
        return null; // e.g. 0600 from an older agent: the runtime may not read it; rewrite it
      }
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      log.debug("Cannot read {}; rewriting it: {}", file, e.toString());
      return null;
    }
  }
}
