package io.acceld.dra.apiserver;

import io.acceld.util.GuardedBy;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How the node's ResourceSlices stand, for {@code /readyz} and {@code /healthz}: whether they have
 * been published (and match the node) since the start, and the last error of each part (writes, the
 * watch) that has not recovered since.
 */
public final class SliceStatus {
  /** A part of the publisher that can fail on its own. */
  public enum Part {
    WRITES("publishing slices"),
    WATCH("watching slices"),
    NODE("reading the Node");

    private final String doing;

    Part(String doing) {
      this.doing = doing;
    }
  }

  /** An error and when it was first seen. */
  public record Problem(String message, Instant since) {}

  private final Clock clock;

  @GuardedBy("this")
  private boolean published;

  @GuardedBy("this")
  private final Map<Part, Problem> problems = new EnumMap<>(Part.class);

  public SliceStatus(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Whether the slices have matched the node's devices at least once since the start. */
  public synchronized boolean published() {
    return published;
  }

  /** The newest error not yet recovered from, with what was being done. */
  public synchronized Optional<String> lastError() {
    return problems.entrySet().stream()
        .max(Map.Entry.comparingByValue(Comparator.comparing(Problem::since)))
        .map(e -> e.getKey().doing + ": " + e.getValue().message());
  }

  /** For {@code /readyz}: why the node is not ready, if it is not. */
  public Optional<String> notReady() {
    return published() ? Optional.empty() : Optional.of("DRA slices not published yet");
  }

  /** For {@code /healthz}: a degradation sentence while an error stands. */
  public Optional<String> degraded() {
    return lastError().map(e -> "DRA: " + e);
  }

  synchronized void failed(Part part, String message) {
    Problem old = problems.get(part);
    problems.put(part, new Problem(message, old == null ? clock.instant() : old.since()));
  }

  synchronized void recovered(Part part) {
    problems.remove(part);
  }

  synchronized void publishedNow() {
    published = true;
    problems.remove(Part.WRITES);
  }
}
