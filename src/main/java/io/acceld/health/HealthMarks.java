package io.acceld.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The active health marks, one per device and source. Sticky marks (XID, ECC) end when the
 * quarantine has passed since they were raised; with no quarantine they stay, which is the safe
 * default. Other marks end when their source clears them. Thread-safe.
 */
public final class HealthMarks {
  private final Clock clock;
  private final Optional<Duration> quarantine;
  private final Map<String, Map<HealthSource, HealthMark>> marks = new HashMap<>();

  /**
   * @param quarantine how long sticky marks last; empty keeps them until the agent restarts
   */
  public HealthMarks(Clock clock, Optional<Duration> quarantine) {
    this.clock = clock;
    this.quarantine = quarantine;
  }

  /** Records {@code mark}; true if the device gained a source it did not have. */
  public synchronized boolean mark(HealthMark mark) {
    Map<HealthSource, HealthMark> byDevice =
        marks.computeIfAbsent(mark.deviceId(), d -> new LinkedHashMap<>());
    HealthMark previous = byDevice.get(mark.source());
    if (previous != null && !expired(previous)) {
      if (mark.source().sticky()) {
        // A repeat restarts the quarantine and keeps the newest reason.
        byDevice.put(mark.source(), mark);
      }
      return false;
    }
    byDevice.put(mark.source(), mark);
    return true;
  }

  /** Ends the {@code source} mark of a device; true if there was one. */
  public synchronized boolean clear(String deviceId, HealthSource source) {
    Map<HealthSource, HealthMark> byDevice = marks.get(deviceId);
    if (byDevice == null || byDevice.remove(source) == null) {
      return false;
    }
    if (byDevice.isEmpty()) {
      marks.remove(deviceId);
    }
    return true;
  }

  public synchronized boolean has(String deviceId, HealthSource source) {
    Map<HealthSource, HealthMark> byDevice = marks.get(deviceId);
    return byDevice != null && byDevice.containsKey(source) && !expired(byDevice.get(source));
  }

  /** The marks in force now, by device, expired ones dropped. */
  public synchronized Map<String, List<HealthMark>> active() {
    Map<String, List<HealthMark>> result = new HashMap<>();
    for (var it = marks.entrySet().iterator(); it.hasNext(); ) {
      var entry = it.next();
      entry.getValue().values().removeIf(this::expired);
      if (entry.getValue().isEmpty()) {
        it.remove();
      } else {
        result.put(entry.getKey(), List.copyOf(entry.getValue().values()));
      }
    }
    return result;
  }

  /** When the next sticky mark will expire, so the agent can republish then. */
  public synchronized Optional<Instant> nextExpiry() {
    if (quarantine.isEmpty()) {
      return Optional.empty();
    }
    List<Instant> ends = new ArrayList<>();
    marks
        .values()
        .forEach(
            m ->
                m.values().stream()
                    .filter(h -> h.source().sticky())
                    .forEach(h -> ends.add(h.since().plus(quarantine.get()))));
    return ends.stream().min(Instant::compareTo);
  }

  private boolean expired(HealthMark mark) {
    return mark.source().sticky()
        && quarantine.isPresent()
        && !clock.instant().isBefore(mark.since().plus(quarantine.get()));
  }
}
