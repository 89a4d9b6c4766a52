package io.acceld.nvml;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Calls and errors per NVML function, so metrics can report "NVML calls and errors".
 *
 * <p>Thread-safe: pollers and the event thread record concurrently. An error is a result the caller
 * treats as a failure; expected outcomes (TIMEOUT from an event wait, NOT_SUPPORTED for an optional
 * feature, "no such link" while scanning NVLinks) count as calls only.
 */
public final class NvmlCallStats {

  /** Counts for one function at the time of the snapshot. */
  public record Counts(long calls, long errors) {}

  private static final class Counter {
    final LongAdder calls = new LongAdder();
    final LongAdder errors = new LongAdder();
  }

  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  /** Created by the loader, one per loaded library; read-only for everyone else. */
  NvmlCallStats() {}

  void record(String function, boolean error) {
    Counter counter = counters.computeIfAbsent(function, f -> new Counter());
    counter.calls.increment();
    if (error) {
      counter.errors.increment();
    }
  }

  /** Per function, sorted by name. Each entry is read atomically enough for metrics. */
  public Map<String, Counts> snapshot() {
    Map<String, Counts> result = new TreeMap<>();
    counters.forEach((f, c) -> result.put(f, new Counts(c.calls.sum(), c.errors.sum())));
    return Collections.unmodifiableMap(result);
  }

  /** Calls of {@code function} so far; 0 for one never called. */
  public long calls(String function) {
    Counter counter = counters.get(function);
    return counter == null ? 0 : counter.calls.sum();
  }

  public long totalCalls() {
    return counters.values().stream().mapToLong(c -> c.calls.sum()).sum();
  }

  public long totalErrors() {
    return counters.values().stream().mapToLong(c -> c.errors.sum()).sum();
  }
}
