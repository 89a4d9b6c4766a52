package io.acceld.health;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlDevice;
import io.acceld.nvml.NvmlException;
import io.acceld.util.NamedThreads;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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

  private final Nvml nvml;
  private final GpuHandles handles;
  private final Supplier<Inventory> discovered;
  private final HealthMarks marks;
  private final HealthListener listener;
  private final Runnable gpuRecovered;
  private final Clock clock;
  private final Duration interval;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(new NamedThreads("acceld-health-probe"));

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
    this.interval = interval;
  }

  public void start() {
    thread.scheduleWithFixedDelay(this::probeSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void probeSafely() {
    try {
      probe();
    } catch (RuntimeException e) {
      log.error("Health probe failed", e);
    }
  }

  void probe() {
    boolean changed = false;
    for (Device d : GpuHandles.nvidiaGpus(discovered.get())) {
      changed |= probe(d);
    }
    Optional<java.time.Instant> expiry = marks.nextExpiry();
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

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(3, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
