package io.acceld.health;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.MigDetails;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlDevice;
import io.acceld.nvml.NvmlEvent;
import io.acceld.nvml.NvmlEventSet;
import io.acceld.nvml.NvmlEventType;
import io.acceld.nvml.NvmlException;
import io.acceld.nvml.NvmlReturn;
import io.acceld.util.Backoff;
import io.acceld.util.LoopWatchdog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches NVML events on its own thread. A critical XID (unless ignored) or a double-bit ECC error
 * marks that GPU; single-bit ECC errors are only counted.
 *
 * <p>Unlike NVIDIA's plugin, a wait error never condemns every GPU. "GPU is lost" leads to a probe
 * of each GPU, and only those that answer lost are marked; the event set is then rebuilt without
 * them, because NVML keeps failing the wait while a lost GPU is in the set. Any other error backs
 * off (1 s doubling to 30 s) and rebuilds the set. An NVML that keeps failing every wait while any
 * GPU is lost, even one no longer in the set, is probed and waited on again every 2 s, without
 * rebuilding. The wait itself times out every second (a lost GPU is seen within two seconds even by
 * an NVML that does not wake the wait; events, and a lost GPU on an NVML that wakes the wait,
 * return at once), so the loop costs about one NVML call a second when idle and never spins. At
 * half a second the timeouts were 2 to 3 of an idle agent's ~25 CPU ticks per 30 s.
 *
 * <p>An NVML that lacks part of the event API (another vendor's partial build, a stripped library)
 * can never deliver events. The monitor then enters {@link State#EVENTS_UNAVAILABLE}, says so once,
 * and its thread ends: the prober alone watches health, and {@link #unavailableReason()} tells why.
 */
public final class NvmlEventMonitor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NvmlEventMonitor.class);

  static final long WATCHED_EVENTS =
      NvmlEventType.XID_CRITICAL_ERROR
          | NvmlEventType.DOUBLE_BIT_ECC_ERROR
          | NvmlEventType.SINGLE_BIT_ECC_ERROR;
  static final int WAIT_MS = 1000;

  /** The most events read in one batch before publishing; NVML queues at most 1,024 per set. */
  static final int MAX_BATCH = 1024;

  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  static final Duration LOST_ELSEWHERE_PAUSE = Duration.ofSeconds(2);

  private final Nvml nvml;
  private final GpuHandles handles;
  private final Supplier<Inventory> discovered;
  private final HealthMarks marks;
  private final XidPolicy xids;
  private final HealthListener listener;
  private final Runnable rediscover;
  private final Clock clock;
  private final Thread thread;
  private final int waitMs;
  private final CountDownLatch stop = new CountDownLatch(1);

  // Held by the monitor thread for all its work but NVML's wait, and taken by close(): once close()
  // has had it, the thread only returns from a wait it is in, frees its set and ends.
  private final ReentrantLock working = new ReentrantLock();
  private final LoopWatchdog watchdog = new LoopWatchdog("NVML event watch");

  private volatile State state = State.NOT_STARTED;
  private volatile Optional<String> unavailableReason = Optional.empty();
  private volatile boolean rebuildRequested = true;

  // Confined to the monitor thread.
  private NvmlEventSet set;
  private Map<String, Device> watched = Map.of();
  // A GPU's handle, and the devices it stands for: the GPU, or its MIG devices (NVML delivers
  // their events on the parent, with the GPU- and compute-instance IDs).
  private final Map<NvmlDevice, List<Device>> byHandle = new HashMap<>();
  private final Backoff backoff = new Backoff(FIRST_BACKOFF, MAX_BACKOFF);

  /** What the monitor is doing. */
  public enum State {
    NOT_STARTED,
    /** Waiting for events, or recovering from a failed wait. */
    WATCHING,
    /** This NVML cannot deliver events; the thread has ended and probes alone watch health. */
    EVENTS_UNAVAILABLE,
    STOPPED
  }

  /**
   * @param rediscover asks discovery for a new snapshot soon: NVML said a GPU's MIG layout changed
   * @param waitMs each NVML wait's timeout: {@link #WAIT_MS}, longer in tests of the stop
   */
  NvmlEventMonitor(
      Nvml nvml,
      Supplier<Inventory> discovered,
      HealthMarks marks,
      XidPolicy xids,
      HealthListener listener,
      Runnable rediscover,
      Clock clock,
      int waitMs) {
    this.waitMs = waitMs;
    this.rediscover = rediscover;
    this.nvml = nvml;
    this.handles = new GpuHandles(nvml);
    this.discovered = discovered;
    this.marks = marks;
    this.xids = xids;
    this.listener = listener;
    this.clock = clock;
    this.thread = new Thread(this::loop, "acceld-nvml-events");
    thread.setDaemon(true);
  }

  GpuHandles handles() {
    return handles;
  }

  /**
   * Whether the monitor does its job: its thread waits for events, or it found that this NVML has
   * none and deliberately left health to the prober. False once closed, or if the thread died.
   */
  boolean alive() {
    return switch (state) {
      case WATCHING -> thread.isAlive();
      case EVENTS_UNAVAILABLE -> true;
      case NOT_STARTED, STOPPED -> false;
    };
  }

  public State state() {
    return state;
  }

  /** Why NVML cannot deliver events, once the monitor found it cannot; empty otherwise. */
  public Optional<String> unavailableReason() {
    return unavailableReason;
  }

  public void start() {
    state = State.WATCHING;
    thread.start();
  }

  /** Rebuilds the event set on the next turn, e.g. when a lost GPU answers again. */
  public void requestRebuild() {
    rebuildRequested = true;
  }

  private void loop() {
    try {
      while (true) {
        working.lock();
        try {
          if (stop.getCount() == 0) {
            return;
          }
          turn();
        } catch (NvmlException e) {
          if (missingFunction(e)) {
            eventsUnavailable(e);
            return;
          }
          Duration delay = backoff.next();
          log.warn(
              "Waiting for NVML events failed: {}; rebuilding the event set in {} ms",
              NvmlReturn.describe(e.returnCode()),
              delay.toMillis());
          retryAfter(delay);
        } catch (RuntimeException e) {
          Duration delay = backoff.next();
          log.error("NVML event monitor error; backing off {} ms", delay.toMillis(), e);
          retryAfter(delay);
        } finally {
          working.unlock();
        }
      }
    } finally {
      closeSet();
    }
  }

  /**
   * One wait for events, rebuilding the set first when needed. Throws what it cannot handle, so the
   * loop alone decides about errors, including the one that makes events unavailable.
   */
  private void turn() {
    watchdog.turnBegins();
    try {
      watchOnce();
    } finally {
      watchdog.turnEnds();
    }
  }

  /**
   * Why the event watch is stuck: one turn (a rebuild, a wait of {@link #WAIT_MS} and the events'
   * handling) has not returned within {@code limit}, so an NVML call of it hangs.
   */
  Optional<String> stuck(Duration limit) {
    return watchdog.stuck(limit);
  }

  private void watchOnce() {
    Map<String, Device> wanted = wanted();
    if (rebuildRequested || set == null || !wanted.keySet().equals(watched.keySet())) {
      rebuild(wanted);
    }
    if (watched.isEmpty()) {
      pause(Duration.ofMillis(waitMs));
      return;
    }
    Optional<NvmlEvent> event;
    NvmlException failed = null;
    // The one call made without `working`: a close() meanwhile does not sit out the wait, and NVML
    // is shut down only once the wait has returned (Nvml#close).
    working.unlock();
    try {
      event = nvml.waitForEvent(set, waitMs);
    } catch (NvmlException e) {
      event = Optional.empty();
      failed = e;
    } finally {
      working.lock();
    }
    if (stop.getCount() == 0) {
      return; // closed during the wait: neither its events nor its failure matter now
    }
    if (failed != null) {
      if (!failed.isGpuLost()) {
        throw failed;
      }
      if (markLost()) {
        rebuildRequested = true; // drop the lost GPU from the set
      } else {
        // Every GPU we watch answers: the lost one is already marked and out of the set, but
        // this NVML fails every wait while any GPU is lost. Events for healthy GPUs stay
        // queued in the set, so wait again after a short, fixed pause; rebuilding would only
        // cost calls. (A GPU newly lost meanwhile is found by the next probe.)
        log.debug(
            "NVML still reports a lost GPU; waiting again in {} ms",
            LOST_ELSEWHERE_PAUSE.toMillis());
        pause(LOST_ELSEWHERE_PAUSE);
      }
      return;
    }
    backoff.reset();
    if (event.isPresent()) {
      boolean changed = handle(event.get());
      try {
        changed |= drain();
      } finally {
        if (changed) {
          listener.changed();
        }
      }
    }
  }

  /**
   * Handles the events already queued behind the one just read, without waiting; true if any
   * changed a mark. A storm (XIDs on every GPU at once, hundreds of them) is so published once, not
   * once per XID: a publish per event made the last GPU of a storm wait seconds for its mark behind
   * the others' repeats, and logged a line per XID. A failing wait ends the batch; the next turn's
   * wait meets the failure again and handles it as every failure is handled.
   */
  private boolean drain() {
    boolean changed = false;
    for (int i = 0; i < MAX_BATCH; i++) {
      Optional<NvmlEvent> next;
      try {
        next = nvml.waitForEvent(set, 0);
      } catch (NvmlException e) {
        return changed;
      }
      if (next.isEmpty()) {
        return changed;
      }
      changed |= handle(next.get());
    }
    return changed;
  }

  /** A function of the event API (or one the monitor probes with) is absent from this NVML. */
  private static boolean missingFunction(NvmlException e) {
    return e.returnCode() == NvmlReturn.ERROR_FUNCTION_NOT_FOUND;
  }

  /** The one place that gives up on events: said once, visible in {@link #state()}. */
  private void eventsUnavailable(NvmlException e) {
    unavailableReason = Optional.of(e.getMessage());
    if (stop.getCount() > 0) { // not closed meanwhile: STOPPED must stay
      state = State.EVENTS_UNAVAILABLE;
    }
    log.warn("NVML cannot deliver events ({}); only probes watch GPU health", e.getMessage());
  }

  private void retryAfter(Duration delay) {
    pause(delay);
    rebuildRequested = true;
  }

  /** NVIDIA GPUs to watch: all but those marked lost. */
  private Map<String, Device> wanted() {
    Map<String, Device> wanted = new LinkedHashMap<>();
    for (Device d : GpuHandles.nvidiaGpus(discovered.get())) {
      if (!marks.has(d.id(), HealthSource.GPU_LOST)) {
        wanted.put(d.id(), d);
      }
    }
    return wanted;
  }

  private void rebuild(Map<String, Device> wanted) {
    rebuildRequested = false;
    closeSet();
    byHandle.clear();
    watched = Map.copyOf(wanted);
    if (wanted.isEmpty()) {
      return;
    }
    set = nvml.createEventSet();
    boolean lostFound = false;
    for (Device d : wanted.values()) {
      try {
        NvmlDevice handle = handles.of(d);
        List<Device> sharing = byHandle.get(handle);
        if (sharing != null) {
          sharing.add(d); // another MIG device of a GPU already registered
          continue;
        }
        long supported = nvml.supportedEventTypes(handle);
        long mask = WATCHED_EVENTS & supported;
        if (mask == 0) {
          log.info("GPU {} reports no XID or ECC events; only probes watch its health", d.id());
          continue;
        }
        nvml.registerEvents(handle, mask | (supported & NvmlEventType.MIG_CONFIG_CHANGE), set);
        byHandle.put(handle, new ArrayList<>(List.of(d)));
      } catch (NvmlException e) {
        if (missingFunction(e)) {
          throw e; // for the loop: no GPU can be watched
        }
        if (e.isGpuLost()) {
          lostFound |= marks.mark(lostMark(d));
        } else if (e.returnCode() == NvmlReturn.ERROR_NOT_SUPPORTED) {
          log.info("GPU {} cannot register health events (too old); only probes watch it", d.id());
        } else {
          log.warn(
              "Cannot watch events of GPU {}: {}", d.id(), NvmlReturn.describe(e.returnCode()));
        }
      }
    }
    if (lostFound) {
      listener.changed();
      rebuildRequested = true;
    }
  }

  /** Records what {@code event} says; true if a mark was raised or renewed (to publish). */
  private boolean handle(NvmlEvent event) {
    // The handle identifies the GPU even when NVML could not name it (lost meanwhile).
    List<Device> devices = byHandle.get(event.device());
    if (devices == null) {
      log.debug("NVML event for a GPU we do not watch: {}", event);
      return false;
    }
    if ((event.eventType() & NvmlEventType.MIG_CONFIG_CHANGE) != 0) {
      log.info("NVML reports a MIG configuration change on GPU {}; rescanning", gpuOf(devices));
      rediscover.run();
      return false;
    }
    if (event.isXid()) {
      int xid = (int) event.eventData();
      boolean ignored = xids.isIgnored(xid);
      List<Device> hit = struck(devices, event);
      hit.forEach(d -> listener.xid(d, xid, ignored));
      if (ignored) {
        log.info(
            "GPU {} reported XID {} ({}), which is on the ignore list",
            gpuOf(devices),
            xid,
            XidNames.name(xid));
        return false;
      }
      Instant now = clock.instant();
      hit.forEach(d -> marks.mark(HealthMark.xid(d.id(), xid, now)));
      return !hit.isEmpty();
    } else if ((event.eventType() & NvmlEventType.DOUBLE_BIT_ECC_ERROR) != 0) {
      Instant now = clock.instant();
      devices.forEach(
          d -> marks.mark(HealthMark.of(d.id(), HealthSource.ECC, now, "double-bit ECC error")));
      return true;
    } else if ((event.eventType() & NvmlEventType.SINGLE_BIT_ECC_ERROR) != 0) {
      devices.forEach(listener::singleBitEcc);
    }
    return false;
  }

  /**
   * The devices an XID strikes. One that names a GPU instance (and perhaps a compute instance)
   * strikes the MIG devices of that instance only; one for the whole GPU (both IDs 0xFFFFFFFF)
   * strikes the GPU, or every MIG device on it. Unlike the incumbent (one MIG device per GPU in its
   * event map, its issue #1929), every MIG device of the GPU is considered.
   */
  private static List<Device> struck(List<Device> devices, NvmlEvent event) {
    if (event.wholeGpu() && event.gpuInstanceId() == -1) {
      return devices;
    }
    List<Device> hit = new ArrayList<>();
    for (Device d : devices) {
      Optional<MigDetails> mig = d.nvidia().flatMap(NvidiaDetails::mig);
      if (mig.isEmpty()) {
        hit.add(d); // a whole GPU: an instance's fault is its fault
      } else if (mig.get().gpuInstanceId() == event.gpuInstanceId()
          && (event.computeInstanceId() == -1
              || mig.get().computeInstanceId() == event.computeInstanceId())) {
        hit.add(d);
      }
    }
    if (hit.isEmpty()) {
      log.warn(
          "GPU {} reported XID {} for GPU instance {} compute instance {}, which none of its"
              + " advertised MIG devices is",
          gpuOf(devices),
          event.eventData(),
          event.gpuInstanceId(),
          event.computeInstanceId());
    }
    return hit;
  }

  /** The GPU a handle's devices are on: its UUID, or the parent's of its MIG devices. */
  private static String gpuOf(List<Device> devices) {
    Device first = devices.get(0);
    return first
        .nvidia()
        .flatMap(NvidiaDetails::mig)
        .map(MigDetails::parentUuid)
        .orElse(first.id());
  }

  /** Probes each watched GPU once; marks those that answer lost. True if any was found. */
  private boolean markLost() {
    boolean found = false;
    for (var entry : byHandle.entrySet()) {
      try {
        nvml.index(entry.getKey());
      } catch (NvmlException e) {
        if (missingFunction(e)) {
          throw e; // for the loop: lost GPUs cannot be told apart
        }
        if (e.isGpuLost()) {
          for (Device d : entry.getValue()) {
            found |= marks.mark(lostMark(d));
          }
        }
      }
    }
    if (found) {
      listener.changed();
    }
    return found;
  }

  private HealthMark lostMark(Device d) {
    return HealthMark.gpuLost(d.id(), clock.instant());
  }

  private void pause(Duration d) {
    try {
      stop.await(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop.countDown();
    }
  }

  private void closeSet() {
    if (set != null) {
      set.close();
      set = null;
    }
  }

  /**
   * Stops the watch without sitting out NVML's wait (up to {@link #WAIT_MS}): once this returns,
   * the thread calls no listener and makes no NVML call but the wait it may be in and the free of
   * its set, both of which {@link Nvml#close()} lets end before it shuts NVML down. Bounded, so
   * that an NVML call that hangs (a wedged driver) cannot hang the agent's stop.
   */
  @Override
  public void close() {
    state = State.STOPPED;
    stop.countDown();
    try {
      if (working.tryLock(3, TimeUnit.SECONDS)) {
        working.unlock();
      } else {
        log.warn("The NVML event watch did not stop within 3 s: an NVML call it made hangs");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
