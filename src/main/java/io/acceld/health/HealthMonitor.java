package io.acceld.health;

import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The agent's health sources, started and stopped together: NVML events and probes (when NVML is
 * loaded) write health marks; the presence monitor asks for a rediscovery when devices or device
 * nodes come and go.
 */
public final class HealthMonitor implements AutoCloseable {
  private final Optional<NvmlEventMonitor> events;
  private final Optional<HealthProber> prober;
  private final PresenceMonitor presence;

  /** Everything the monitor needs, grouped so the constructor stays readable. */
  public record Settings(
      XidPolicy xids,
      Duration probeInterval,
      Path sysfsRoot,
      Path devRoot,
      Duration presencePoll) {}

  /**
   * @param discovered discovery's latest snapshot, without the health marks: health follows what is
   *     present, never the published inventory that already carries its own output
   * @param marks where the NVML sources record and clear marks
   * @param rediscover asks discovery for a new snapshot soon (devices or device nodes changed)
   */
  public HealthMonitor(
      Optional<Nvml> nvml,
      Supplier<Inventory> discovered,
      HealthMarks marks,
      HealthListener listener,
      Runnable rediscover,
      Clock clock,
      Settings settings) {
    this.events =
        nvml.map(
            n ->
                new NvmlEventMonitor(
                    n,
                    discovered,
                    marks,
                    settings.xids(),
                    listener,
                    rediscover,
                    clock,
                    NvmlEventMonitor.WAIT_MS));
    this.prober =
        events.map(
            e ->
                new HealthProber(
                    nvml.orElseThrow(),
                    e.handles(),
                    discovered,
                    marks,
                    listener,
                    e::requestRebuild,
                    clock,
                    settings.probeInterval()));
    this.presence =
        new PresenceMonitor(
            settings.sysfsRoot(), settings.devRoot(), rediscover, settings.presencePoll());
  }

  public void start() {
    events.ifPresent(NvmlEventMonitor::start);
    prober.ifPresent(HealthProber::start);
    presence.start();
  }

  /**
   * Whether every health source that was started still does its job: an event monitor that found
   * this NVML has no events has ended on purpose and counts as alive; a dead probe loop does not.
   */
  public boolean alive() {
    return presence.alive()
        && events.map(NvmlEventMonitor::alive).orElse(true)
        && prober.map(HealthProber::alive).orElse(true);
  }

  /**
   * Why health watching counts as stuck rather than alive: an NVML call of the probe loop or of the
   * event watch (a wedged driver) that has not returned within {@code limit}. A blocked thread
   * stays alive, so only the time since its turn began shows it.
   */
  public List<String> stuckLoops(Duration limit) {
    List<String> stuck = new ArrayList<>();
    prober.flatMap(p -> p.stuck(limit)).ifPresent(stuck::add);
    events.flatMap(e -> e.stuck(limit)).ifPresent(stuck::add);
    return stuck;
  }

  /**
   * Why NVML events cannot be watched on this node, once the event monitor found they cannot (the
   * prober then watches health alone); empty while events work or without NVML.
   */
  public Optional<String> eventsUnavailable() {
    return events.flatMap(NvmlEventMonitor::unavailableReason);
  }

  @Override
  public void close() {
    presence.close();
    prober.ifPresent(HealthProber::close);
    events.ifPresent(NvmlEventMonitor::close);
  }
}
