package io.acceld.discovery;

import io.acceld.util.NamedThreads;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one device's sysfs reads on a worker thread with a deadline. A read of a wedged driver
 * attribute blocks in the kernel and no Java interrupt ends it, so the caller stops waiting
 * instead: the blocked file is remembered (and never read again until that read returns), the
 * worker is abandoned to its read, and the device is read again on a fresh worker, where the
 * blocked file reads as absent (an optional attribute such as {@code numa_node}: the device keeps
 * its place, NUMA unknown) or fails the device (a required one such as {@code vendor}: it is
 * reported and left out). At most one thread is ever stuck per wedged file.
 */
final class DeadlineReads {
  /** How long one device's reads may take. */
  static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(2);

  /** Reads of one device, attempted again after each file that blocked; bounded per device. */
  private static final int MAX_ATTEMPTS = 4;

  /** A read that did not return in time, or a file whose earlier read has not returned yet. */
  static final class Blocked extends IOException {
    Blocked(Path file) {
      super("reading " + file + " blocks (a wedged driver attribute?)");
    }

    Blocked(String what) {
      super("reading " + what + " blocks");
    }
  }

  /** One device's reads, given the files to read with. */
  @FunctionalInterface
  interface Read<T> {
    T read(SysfsFiles files) throws IOException;
  }

  /**
   * A file whose read did not return within the deadline, and has not returned since.
   *
   * @param file the attribute file
   * @param since when its read was first given up
   */
  record BlockedRead(Path file, Instant since) {}

  private final Duration deadline;
  private final Clock clock;

  /** Files whose read blocked and has not returned yet, with when it was given up. */
  private final Map<Path, Instant> wedged = new ConcurrentHashMap<>();

  private ThreadPoolExecutor worker; // guarded by this

  DeadlineReads(Duration deadline) {
    this(deadline, Clock.systemUTC());
  }

  DeadlineReads(Duration deadline, Clock clock) {
    this.deadline = deadline;
    this.clock = clock;
  }

  /** Files whose read blocked and has not returned yet. */
  Set<Path> wedged() {
    return Set.copyOf(wedged.keySet());
  }

  /** The reads that blocked and have not returned yet, oldest first. */
  List<BlockedRead> blocked() {
    return wedged.entrySet().stream()
        .map(e -> new BlockedRead(e.getKey(), e.getValue()))
        .sorted(Comparator.comparing(BlockedRead::since).thenComparing(BlockedRead::file))
        .toList();
  }

  /**
   * Runs {@code read} with the deadline, retrying past each file that blocks.
   *
   * @throws Blocked if it still cannot finish (a required file blocks)
   */
  <T> T run(String what, Read<T> read) throws IOException {
    for (int attempt = 1; ; attempt++) {
      // The key set is a live view: SysfsFiles forgets a file there when its read returns.
      SysfsFiles files = new SysfsFiles(wedged.keySet());
      Future<T> result = submit(() -> read.read(files));
      try {
        return result.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        abandonWorker();
        Optional<Path> stuck = files.reading();
        if (stuck.isEmpty()) {
          throw new Blocked(what);
        }
        wedged.putIfAbsent(stuck.get(), clock.instant());
        if (!files.reading().equals(stuck)) {
          wedged.remove(stuck.get()); // it returned meanwhile (SysfsFiles forgets it when it does)
        }
        if (attempt == MAX_ATTEMPTS) {
          throw new Blocked(what);
        }
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          throw io;
        }
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw new IOException(e.getCause());
      } catch (InterruptedException e) {
        result.cancel(true);
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while reading " + what);
      }
    }
  }

  private synchronized <T> Future<T> submit(java.util.concurrent.Callable<T> task) {
    if (worker == null) {
      worker =
          new ThreadPoolExecutor(
              1,
              1,
              10,
              TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(),
              new NamedThreads("acceld-sysfs-read"));
      worker.allowCoreThreadTimeOut(true); // no thread at all between scans
    }
    return worker.submit(task);
  }

  /** Leaves the current worker to its blocked read; the next read gets a new one. */
  private synchronized void abandonWorker() {
    if (worker != null) {
      worker.shutdown(); // its thread ends once the read returns
      worker = null;
    }
  }
}
