package io.acceld.health;

import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
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

  public HealthMonitor(
      Optional<Nvml> nvml,
      Supplier<Inventory> inventory,
      HealthMarks marks,
      HealthListener listener,
      Runnable rediscover,
      Clock clock,
      Settings settings) {
    this.events =
        nvml.map(n -> new NvmlEventMonitor(n, inventory, marks, settings.xids(), listener, clock));
    this.prober =
        events.map(
            e ->
                new HealthProber(
                    nvml.orElseThrow(),
                    e.handles(),
                    inventory,
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

  /** Whether every health thread that was started is still running. */
  public boolean alive() {
    return presence.alive() && events.map(NvmlEventMonitor::alive).orElse(true);
  }

  @Override
  public void close() {
    presence.close();
    prober.ifPresent(HealthProber::close);
    events.ifPresent(NvmlEventMonitor::close);
  }
}
