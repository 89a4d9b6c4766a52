package io.acceld.telemetry;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.inventory.PciAddresses;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlDevice;
import io.acceld.nvml.NvmlEccCounter;
import io.acceld.nvml.NvmlEccErrorType;
import io.acceld.nvml.NvmlException;
import io.acceld.nvml.NvmlField;
import io.acceld.nvml.NvmlMemoryInfo;
import io.acceld.nvml.NvmlUtilization;
import io.acceld.util.PeriodicTask;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads temperature, power, utilisation, framebuffer memory, clocks, energy, PCIe replays, row
 * remapping and ECC totals of every NVIDIA GPU in the current inventory that NVML knows, on its own
 * thread ({@code acceld-telemetry}) every interval, and keeps the last result as an immutable
 * {@link TelemetrySample}. Scrapes read that sample and never wait on NVML, which can block for a
 * long time on a sick GPU.
 *
 * <p>Failures stay local: a reading the GPU does not support is left out; a GPU that is lost (or
 * whose handle cannot be had) is left out of that sample; any other failed reading is left out.
 * Each GPU's trouble is logged when it starts and when it ends, not on every pass. A pass that
 * fails as a whole keeps the previous sample. The next pass always waits a full interval after the
 * previous one ended, so the sampler never spins.
 */
public final class GpuTelemetrySampler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GpuTelemetrySampler.class);
  private static final String OK = "ok";
  private static final Set<NvmlField> FIELDS = EnumSet.allOf(NvmlField.class);

  private final Nvml nvml;
  private final Supplier<Inventory> inventory;
  private final Clock clock;
  private final PeriodicTask loop;

  private volatile TelemetrySample latest = TelemetrySample.EMPTY;

  // Touched only inside sampleNow(), which is synchronized.
  private final Map<String, NvmlDevice> handles = new HashMap<>();
  private final Map<String, String> states = new HashMap<>();

  public GpuTelemetrySampler(Nvml nvml, Supplier<Inventory> inventory, Duration interval) {
    this(nvml, inventory, interval, Clock.systemUTC());
  }

  GpuTelemetrySampler(Nvml nvml, Supplier<Inventory> inventory, Duration interval, Clock clock) {
    this.nvml = Objects.requireNonNull(nvml, "nvml");
    this.inventory = Objects.requireNonNull(inventory, "inventory");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("telemetry interval must be positive: " + interval);
    }
    this.clock = clock;
    // A pass that throws keeps the previous sample: latest is only replaced by a finished pass.
    this.loop =
        PeriodicTask.every("acceld-telemetry", "GPU telemetry pass", interval, this::sampleNow);
  }

  /** Whether the loop still runs; its turns catch their own failures, so only close ends it. */
  /** Why the sampling loop is stuck, if a pass has run longer than {@code limit}. */
  public Optional<String> stuck(Duration limit) {
    return loop.stuck(limit);
  }

  public boolean alive() {
    return loop.alive();
  }

  /** Takes the first sample at once, then one per interval. */
  public void start() {
    loop.start();
  }

  /** The last completed sample; {@link TelemetrySample#EMPTY} before the first. */
  public TelemetrySample latest() {
    return latest;
  }

  /** One pass over the inventory, published as {@link #latest()} and returned. */
  public synchronized TelemetrySample sampleNow() {
    List<GpuTelemetry> gpus = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (Device device : inventory.get().devices()) {
      Optional<NvidiaDetails> nvidia = device.nvidia();
      if (nvidia.isEmpty() || nvidia.get().uuid() == null || nvidia.get().uuid().isBlank()) {
        continue; // not NVIDIA, or NVIDIA without NVML: nothing to ask
      }
      seen.add(nvidia.get().uuid());
      sample(device, nvidia.get()).ifPresent(gpus::add);
    }
    // forget GPUs that left the inventory, so a returning one logs afresh
    handles.keySet().retainAll(seen);
    states.keySet().retainAll(seen);
    TelemetrySample sample = new TelemetrySample(clock.instant(), gpus);
    latest = sample;
    return sample;
  }

  private Optional<GpuTelemetry> sample(Device device, NvidiaDetails nvidia) {
    String uuid = nvidia.uuid();
    List<String> problems = new ArrayList<>();
    try {
      NvmlDevice handle = handles.get(uuid);
      if (handle == null) {
        handle = nvml.deviceByUuid(uuid);
        handles.put(uuid, handle);
      }
      NvmlDevice h = handle;
      if (nvidia.mig().isPresent()) {
        return Optional.of(migSample(device, nvidia, h, problems));
      }
      OptionalInt temperature =
          read(problems, () -> nvml.temperatureCelsius(h), OptionalInt.empty());
      OptionalLong power = read(problems, () -> nvml.powerUsageMilliwatts(h), OptionalLong.empty());
      Optional<NvmlUtilization> util = read(problems, () -> nvml.utilization(h), Optional.empty());
      Optional<NvmlMemoryInfo> memory = read(problems, () -> nvml.memoryInfo(h), Optional.empty());
      ExtendedReadings extended = extended(problems, h);
      changeState(device, uuid, problems.isEmpty() ? OK : "failing: " + problems);
      return Optional.of(
          new GpuTelemetry(
              device.id(),
              uuid,
              nvidia.index(),
              PciAddresses.nvmlForm(device.pciAddress()),
              device.model(),
              temperature,
              power,
              util.map(u -> OptionalInt.of(u.gpuPercent())).orElse(OptionalInt.empty()),
              util.map(u -> OptionalInt.of(u.memoryPercent())).orElse(OptionalInt.empty()),
              memory.map(m -> OptionalLong.of(usedWithoutReserved(m))).orElse(OptionalLong.empty()),
              memory.map(m -> OptionalLong.of(m.freeBytes())).orElse(OptionalLong.empty()),
              extended));
    } catch (NvmlException e) {
      // lost, or no handle: a fresh lookup next pass, in case the GPU was reset
      handles.remove(uuid);
      changeState(device, uuid, e.isGpuLost() ? "lost" : "unreachable: " + e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * A MIG device: NVML answers per instance for its memory only (utilisation, clocks, power and the
   * rest are the GPU's, and unsupported on a MIG-enabled GPU), labelled as dcgm-exporter labels a
   * GPU instance: the parent's UUID, with the instance's ID and profile.
   */
  private GpuTelemetry migSample(
      Device device, NvidiaDetails nvidia, NvmlDevice h, List<String> problems) {
    Optional<NvmlMemoryInfo> memory = read(problems, () -> nvml.memoryInfo(h), Optional.empty());
    changeState(device, nvidia.uuid(), problems.isEmpty() ? OK : "failing: " + problems);
    return new GpuTelemetry(
        device.id(),
        nvidia.mig().get().parentUuid(),
        nvidia.index(),
        PciAddresses.nvmlForm(device.pciAddress()),
        device.model(),
        OptionalInt.empty(),
        OptionalLong.empty(),
        OptionalInt.empty(),
        OptionalInt.empty(),
        memory.map(m -> OptionalLong.of(usedWithoutReserved(m))).orElse(OptionalLong.empty()),
        memory.map(m -> OptionalLong.of(m.freeBytes())).orElse(OptionalLong.empty()),
        ExtendedReadings.NONE,
        nvidia.mig());
  }

  private ExtendedReadings extended(List<String> problems, NvmlDevice h) {
    OptionalInt none = OptionalInt.empty();
    OptionalLong noCount = OptionalLong.empty();
    return new ExtendedReadings(
        read(problems, () -> nvml.smClockMhz(h), none),
        read(problems, () -> nvml.memoryClockMhz(h), none),
        read(problems, () -> nvml.totalEnergyMillijoules(h), noCount),
        read(problems, () -> nvml.pcieReplays(h), noCount),
        read(problems, () -> nvml.encoderUtilizationPercent(h), none),
        read(problems, () -> nvml.decoderUtilizationPercent(h), none),
        read(problems, () -> nvml.remappedRows(h), Optional.empty()),
        read(problems, () -> ecc(h, NvmlEccErrorType.CORRECTED, NvmlEccCounter.VOLATILE), noCount),
        read(
            problems, () -> ecc(h, NvmlEccErrorType.UNCORRECTED, NvmlEccCounter.VOLATILE), noCount),
        read(problems, () -> ecc(h, NvmlEccErrorType.CORRECTED, NvmlEccCounter.AGGREGATE), noCount),
        read(
            problems,
            () -> ecc(h, NvmlEccErrorType.UNCORRECTED, NvmlEccCounter.AGGREGATE),
            noCount),
        read(problems, () -> nvml.fieldValues(h, FIELDS), Map.of()));
  }

  private OptionalLong ecc(NvmlDevice h, NvmlEccErrorType type, NvmlEccCounter counter) {
    return nvml.totalEccErrors(h, type, counter);
  }

  /** Runs one reading; a lost GPU aborts the GPU, any other failure only drops the reading. */
  private static <T> T read(List<String> problems, Supplier<T> call, T absent) {
    try {
      return call.get();
    } catch (NvmlException e) {
      if (e.isGpuLost()) {
        throw e;
      }
      problems.add(e.function() + " " + e.returnName());
      return absent;
    }
  }

  /** DCGM reports used, reserved and free separately; NVML's v2 "used" includes the reservation. */
  private static long usedWithoutReserved(NvmlMemoryInfo m) {
    return m.reservedBytes() > 0 ? Math.max(0, m.usedBytes() - m.reservedBytes()) : m.usedBytes();
  }

  private void changeState(Device device, String uuid, String state) {
    String before = states.put(uuid, state);
    if (state.equals(before) || (before == null && state.equals(OK))) {
      return;
    }
    if (state.equals(OK)) {
      log.info("GPU {} ({}) answers telemetry again", uuid, device.pciAddress());
    } else if (state.equals("lost")) {
      log.warn(
          "GPU {} ({}) is lost (fallen off the bus); leaving it out of telemetry",
          uuid,
          device.pciAddress());
    } else {
      log.warn("GPU {} ({}) telemetry is incomplete: {}", uuid, device.pciAddress(), state);
    }
  }

  /** Stops sampling; a pass inside NVML, which cannot be interrupted, gets a few seconds. */
  @Override
  public void close() {
    loop.close();
  }
}
