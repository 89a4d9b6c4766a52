package io.acceld.health;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlDevice;
import io.acceld.nvml.NvmlException;
import io.acceld.util.PeriodicTask;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes each NVIDIA GPU on an interval with one NVML call (retired pages pending), which also
 * reveals a GPU that NVML reports lost. A lost GPU that answers again recovers, and the event
 * monitor is asked to watch it again; pending retired pages mark the GPU until they are no longer
 * pending. Also republishes when a quarantine ends.
 */
public final class HealthProber implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HealthProber.class);
  private static final Duration STOP_WAIT = Duration.ofSeconds(3);

  private final Nvml nvml;
  private final GpuHandles handles;
  private final Supplier<Inventory> discovered;
  private final HealthMarks marks;
  private final HealthListener listener;
  private final Runnable gpuRecovered;
  private final Clock clock;
  private final PeriodicTask loop;

  HealthProber(
      Nvml nvml,
      GpuHandles handles,
      Supplier<Inventory> discovered,
      HealthMarks marks,
      HealthListener listener,
      Runnable gpuRecovered,
      Clock clock,
      Duration interval) {
    this.nvml = nvml;
    this.handles = handles;
    this.discovered = discovered;
    this.marks = marks;
    this.listener = listener;
    this.gpuRecovered = gpuRecovered;
    this.clock = clock;
    this.loop = PeriodicTask.every("acceld-health-probe", "Health probe", interval, this::probe);
  }

  /** Probes at once, then every interval. */
  public void start() {
    loop.start();
  }

  /** Why the probe loop is stuck, if a probe has run longer than {@code limit}. */
  Optional<String> stuck(Duration limit) {
    return loop.stuck(limit);
  }

  /** Whether the probe loop still runs; its turns catch their own failures. */
  boolean alive() {
    return loop.alive();
  }

  void probe() {
    boolean changed = false;
    for (Device d : GpuHandles.nvidiaGpus(discovered.get())) {
      changed |= probe(d);
    }
    Optional<Instant> expiry = marks.nextExpiry();
    if (changed || expiry.map(e -> !clock.instant().isBefore(e)).orElse(false)) {
      listener.changed();
    }
  }

  /** One NVML call for one GPU; true if its marks changed. */
  private boolean probe(Device d) {
    boolean wasLost = marks.has(d.id(), HealthSource.GPU_LOST);
    try {
      NvmlDevice handle = handles.of(d);
      Optional<Boolean> pending = nvml.retiredPagesPending(handle);
      boolean changed = false;
      if (wasLost) {
        changed |= marks.clear(d.id(), HealthSource.GPU_LOST);
        log.info("GPU {} answers NVML again", d.id());
        gpuRecovered.run();
      }
      if (pending.orElse(false)) {
        changed |=
            marks.mark(
                HealthMark.of(
                    d.id(),
                    HealthSource.RETIRED_PAGES,
                    clock.instant(),
                    "retired pages pending: reset required"));
      } else {
        changed |= marks.clear(d.id(), HealthSource.RETIRED_PAGES);
      }
      return changed;
    } catch (NvmlException e) {
      if (e.isGpuLost()) {
        return marks.mark(HealthMark.gpuLost(d.id(), clock.instant()));
      }
      log.debug("Probe of GPU {} failed: {}", d.id(), e.getMessage());
      return false;
    }
  }

  /** Stops probing; a probe inside NVML, which cannot be interrupted, gets a few seconds. */
  @Override
  public void close() {
    loop.close(STOP_WAIT);
  }
}
