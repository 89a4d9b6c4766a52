package io.acceld.discovery;

import io.acceld.util.NamedThreads;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs a scan's sysfs reads on a worker thread, each device's with a deadline. A read of a wedged
 * driver attribute blocks in the kernel and no Java interrupt ends it, so the caller stops waiting
 * instead: the blocked file is remembered (and never read again until that read returns), the
 * worker is abandoned to its read, and the device is read again on a fresh worker, where the
 * blocked file reads as absent (an optional attribute such as {@code numa_node}: the device keeps
 * its place, NUMA unknown) or fails the device (a required one such as {@code vendor}: it is
 * reported and left out). At most one thread is ever stuck per wedged file.
 */
final class DeadlineReads {
  /** How long one device's reads may take. */
  static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(2);

  /** Reads of one item, attempted again after each file that blocked; bounded per item. */
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

  /** One item's reads in {@link #runEach}. */
  @FunctionalInterface
  interface ItemRead<I, T> {
    T read(I item, SysfsFiles files) throws IOException;
  }

  /**
   * How one item's reads in {@link #runEach} ended.
   *
   * @param value what they read, or null if they failed
   * @param error why they failed: an {@link IOException} ({@link Blocked} among them) or a
   *     RuntimeException; null if they did not
   */
  record Outcome<T>(T value, Exception error) {}

  /**
   * Runs {@code read} for each item, in order, on the worker in one hand-off rather than one per
   * item: a thread hand-off and its wake-up per device were most of a rescan's cost. Each item's
   * reads still get the whole deadline, counted from when they begin. When one blocks, the worker
   * is left to it and a fresh one goes on from that item, which is retried past the blocked file (a
   * required file that blocks fails that item only).
   */
  <I, T> List<Outcome<T>> runEach(List<I> items, Function<I, String> what, ItemRead<I, T> read)
      throws InterruptedIOException {
    int n = items.size();
    List<Outcome<T>> outcomes = new ArrayList<>(Collections.nCopies(n, null));
    int[] attempts = new int[n];
    int from = 0;
    while (from < n) {
      Batch<I, T> batch = new Batch<>(items, from, read, outcomes);
      submit(batch);
      int stuckAt;
      SysfsFiles files;
      synchronized (batch) {
        try {
          while (!batch.finished) {
            long left = batch.itemStarted + deadline.toNanos() - System.nanoTime();
            if (left <= 0) {
              break;
            }
            TimeUnit.NANOSECONDS.timedWait(batch, left);
          }
        } catch (InterruptedException e) {
          batch.abandoned = true;
          abandonWorker();
          Thread.currentThread().interrupt();
          throw new InterruptedIOException(
              "interrupted while reading " + what.apply(items.get(batch.current)));
        }
        if (batch.finished) {
          return outcomes;
        }
        batch.abandoned = true; // it writes no more outcomes
        stuckAt = batch.current;
        files = batch.files;
      }
      abandonWorker();
      attempts[stuckAt]++;
      Optional<Path> stuck = files.reading();
      if (stuck.isPresent()) {
        wedged.putIfAbsent(stuck.get(), clock.instant());
        if (!files.reading().equals(stuck)) {
          wedged.remove(stuck.get()); // it returned meanwhile (SysfsFiles forgets it when it does)
        }
      }
      if (stuck.isEmpty() || attempts[stuckAt] == MAX_ATTEMPTS) {
        outcomes.set(stuckAt, new Outcome<>(null, new Blocked(what.apply(items.get(stuckAt)))));
        from = stuckAt + 1;
      } else {
        from = stuckAt; // again, past the file now known to block
      }
    }
    return outcomes;
  }

  /** One hand-off of {@link #runEach}: items from {@code from} on, until done or abandoned. */
  private final class Batch<I, T> implements Runnable {
    private final List<I> items;
    private final ItemRead<I, T> read;
    private final List<Outcome<T>> outcomes;

    // guarded by this
    int current;
    SysfsFiles files;
    long itemStarted = System.nanoTime(); // waiting for the worker counts against the first item
    boolean finished;
    boolean abandoned;

    Batch(List<I> items, int from, ItemRead<I, T> read, List<Outcome<T>> outcomes) {
      this.items = items;
      this.current = from;
      // Until the worker begins the first item: a batch it never starts has read nothing yet
      this.files = new SysfsFiles(wedged.keySet());
      this.read = read;
      this.outcomes = outcomes;
    }

    @Override
    public void run() {
      int from;
      synchronized (this) {
        from = current;
      }
      for (int i = from; i < items.size(); i++) {
        // The key set is a live view: SysfsFiles forgets a file there when its read returns.
        SysfsFiles mine = new SysfsFiles(wedged.keySet());
        synchronized (this) {
          if (abandoned) {
            return;
          }
          current = i;
          files = mine;
          itemStarted = System.nanoTime();
        }
        Outcome<T> outcome;
        try {
          outcome = new Outcome<>(read.read(items.get(i), mine), null);
        } catch (IOException | RuntimeException e) {
          outcome = new Outcome<>(null, e);
        }
        synchronized (this) {
          if (abandoned) {
            return;
          }
          outcomes.set(i, outcome);
        }
      }
      synchronized (this) {
        finished = true;
        notifyAll();
      }
    }
  }

  private synchronized void submit(Runnable task) {
    worker().execute(task);
  }

  private synchronized ThreadPoolExecutor worker() {
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
    return worker;
  }

  /** Leaves the current worker to its blocked read; the next read gets a new one. */
  private synchronized void abandonWorker() {
    if (worker != null) {
      worker.shutdown(); // its thread ends once the read returns
      worker = null;
    }
  }
}
