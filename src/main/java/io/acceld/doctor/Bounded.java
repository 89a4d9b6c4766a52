package io.acceld.doctor;

import io.acceld.util.NamedThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one piece of the examination on its own daemon thread and waits for it at most a limit. A
 * read of a wedged driver attribute or an NVML call on a hung GPU blocks in the kernel, where no
 * interrupt reaches it: the caller stops waiting, the thread is left to its call (a daemon, so it
 * never keeps the JVM alive), and the rest of the examination goes on.
 */
final class Bounded {
  private Bounded() {}

  /** How a bounded piece of work ended. */
  sealed interface Outcome<T> {
    /** It returned {@code value}. */
    record Done<T>(T value) implements Outcome<T> {}

    /** It was still running when the limit passed. */
    record Late<T>(Duration limit) implements Outcome<T> {}

    /** It threw; a check that throws is a failure of that check only. */
    record Threw<T>(Throwable error) implements Outcome<T> {}
  }

  static <T> Outcome<T> call(String name, Duration limit, Callable<T> work) {
    return all(name, limit, List.of(work)).get(0);
  }

  /**
   * Runs every piece at once, each on its own thread, and waits for all of them until one shared
   * deadline: one hung GPU costs the limit once, not once per GPU after it.
   */
  static <T> List<Outcome<T>> all(String name, Duration limit, List<Callable<T>> work) {
    NamedThreads threads = new NamedThreads("acceld-doctor-" + name);
    List<CompletableFuture<T>> results = new ArrayList<>();
    for (Callable<T> piece : work) {
      CompletableFuture<T> result = new CompletableFuture<>();
      results.add(result);
      threads
          .newThread(
              () -> {
                try {
                  result.complete(piece.call());
                } catch (Throwable e) { // anything at all: it becomes this piece's failure
                  result.completeExceptionally(e);
                }
              })
          .start();
    }
    long deadline = System.nanoTime() + limit.toNanos();
    List<Outcome<T>> outcomes = new ArrayList<>();
    for (CompletableFuture<T> result : results) {
      outcomes.add(await(result, deadline, limit));
    }
    return outcomes;
  }

  private static <T> Outcome<T> await(CompletableFuture<T> result, long deadline, Duration limit) {
    try {
      long left = Math.max(0, deadline - System.nanoTime());
      return new Outcome.Done<>(result.get(left, TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      return new Outcome.Late<>(limit);
    } catch (ExecutionException e) {
      return new Outcome.Threw<>(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Outcome.Late<>(limit);
    }
  }

  /** {@code limit} as an operator reads it: {@code 10s}, {@code 1.5s}, {@code 250ms}. */
  static String shown(Duration limit) {
    long ms = limit.toMillis();
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms >= 1000 ? String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0) : ms + "ms";
  }
}
