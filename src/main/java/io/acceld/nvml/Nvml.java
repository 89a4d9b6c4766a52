package io.acceld.nvml;

import static io.acceld.nvml.NvmlReturn.ERROR_FUNCTION_NOT_FOUND;
import static io.acceld.nvml.NvmlReturn.ERROR_INVALID_ARGUMENT;
import static io.acceld.nvml.NvmlReturn.ERROR_NOT_FOUND;
import static io.acceld.nvml.NvmlReturn.ERROR_NOT_SUPPORTED;
import static io.acceld.nvml.NvmlReturn.ERROR_TIMEOUT;
import static io.acceld.nvml.NvmlReturn.ERROR_UNINITIALIZED;
import static io.acceld.nvml.NvmlReturn.SUCCESS;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import io.acceld.util.GuardedBy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An initialised NVML library: typed, exception-based access to the functions in {@link
 * NvmlLibrary}. Obtain one from {@link NvmlLoader#load}; {@link #close()} calls {@code
 * nvmlShutdown} once.
 *
 * <p>Errors: methods throw {@link NvmlException} when NVML fails. Features a GPU or driver may lack
 * (NOT_SUPPORTED, or a symbol missing from an older driver) return an empty Optional instead,
 * because a missing metric is not a fault.
 *
 * <p>Thread-safe: NVML itself is, and this class keeps no mutable state besides the closed flag,
 * the count of event-set calls under way (which decides who calls {@code nvmlShutdown}) and the
 * {@link #callStats() call counters}.
 */
public final class Nvml implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Nvml.class);

  /** {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE}, {@code NVML_DEVICE_NAME_V2_BUFFER_SIZE}. */
  private static final int DEVICE_STRING_SIZE = 96;

  /** {@code NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE}, {@code NVML_SYSTEM_NVML_VERSION_..}. */
  private static final int SYSTEM_STRING_SIZE = 80;

  /** Room for 4096 CPUs: more than any current server, cheap to allocate per call. */
  private static final int CPU_SET_WORDS = 4096 / 64;

  private static final int TEMPERATURE_GPU = 0;
  private static final int CLOCK_SM = 1;
  private static final int CLOCK_MEM = 2;
  private static final int FEATURE_ENABLED = 1;

  /** Far above the 18 profile indices of NVML 13.3: the enumeration ends at INVALID_ARGUMENT. */
  private static final int MAX_GPU_INSTANCE_PROFILES = 64;

  private final NvmlLibrary lib;
  private final String source;
  private final Set<NvmlCapability> capabilities;
  private final NvmlCallStats stats;
  private final Set<String> missingSymbols;
  private final Optional<Path> libraryFile;
  private final AtomicBoolean closed = new AtomicBoolean();

  // Event-set calls under way, and whether close() left nvmlShutdown to the last of them. A wait
  // lasts up to its timeout and cannot be interrupted; NVML must not be shut down under it (nor
  // under a free of a set), and a stopping agent should not sit out the wait's second either.
  private final Object setCalls = new Object();

  @GuardedBy("setCalls")
  private int setCallsUnderWay;

  @GuardedBy("setCalls")
  private boolean shutdownDeferred;

  Nvml(
      NvmlLibrary lib,
      String source,
      Set<NvmlCapability> capabilities,
      NvmlCallStats stats,
      Set<String> missingSymbols,
      Optional<Path> libraryFile) {
    this.lib = Objects.requireNonNull(lib, "lib");
    this.source = Objects.requireNonNull(source, "source");
    this.missingSymbols = Collections.unmodifiableSet(new TreeSet<>(missingSymbols));
    this.libraryFile = Objects.requireNonNull(libraryFile, "libraryFile");
    this.capabilities =
        Collections.unmodifiableSet(
            capabilities.isEmpty()
                ? EnumSet.noneOf(NvmlCapability.class)
                : EnumSet.copyOf(capabilities));
    this.stats = Objects.requireNonNull(stats, "stats");
  }

  // ------------------------------------------------------------------ library

  /** The library name or path that was loaded, for logs and diagnostics. */
  public String source() {
    return source;
  }

  /**
   * The file the dynamic loader mapped for {@link #source()} (a soname resolves through its cache
   * and search path); empty where the process's mappings cannot be read.
   */
  public Optional<Path> libraryFile() {
    return libraryFile;
  }

  /** The functions of {@link NvmlSymbols#used()} this library does not export, sorted. */
  public Set<String> missingSymbols() {
    return missingSymbols;
  }

  /** Optional functions this driver exports. */
  public Set<NvmlCapability> capabilities() {
    return capabilities;
  }

  public boolean supports(NvmlCapability capability) {
    return capabilities.contains(capability);
  }

  /** Calls and errors per NVML function since load (including the initial nvmlInit_v2). */
  public NvmlCallStats callStats() {
    return stats;
  }

  /**
   * Calls {@code nvmlShutdown} the first time; later calls do nothing. Never throws: it runs on
   * shutdown paths, where a failure is worth a log line but must not mask the real exception.
   *
   * <p>Never waits either: while an event wait (or a set's free) is under way on another thread,
   * {@code nvmlShutdown} is left to that thread, which calls it as the wait returns. Event-set
   * calls made after this one fail with UNINITIALIZED without reaching NVML.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    synchronized (setCalls) {
      if (setCallsUnderWay > 0) {
        shutdownDeferred = true;
        return;
      }
    }
    bestEffort("nvmlShutdown", lib.nvmlShutdown());
  }

  /** Whether an event-set call may go to NVML: false once closed. Pair a true with a leave. */
  private boolean enterSetCall() {
    synchronized (setCalls) {
      if (closed.get()) {
        return false;
      }
      setCallsUnderWay++;
      return true;
    }
  }

  /** Ends an event-set call; the last one out after a close shuts NVML down. */
  private void leaveSetCall() {
    boolean shutdown;
    synchronized (setCalls) {
      setCallsUnderWay--;
      shutdown = setCallsUnderWay == 0 && shutdownDeferred;
      if (shutdown) {
        shutdownDeferred = false;
      }
    }
    if (shutdown) {
      bestEffort("nvmlShutdown", lib.nvmlShutdown());
    }
  }

  // ------------------------------------------------------------------ system

  public String driverVersion() {
    byte[] buf = new byte[SYSTEM_STRING_SIZE];
    require("nvmlSystemGetDriverVersion", lib.nvmlSystemGetDriverVersion(buf, buf.length));
    return string(buf);
  }

  public String nvmlVersion() {
    byte[] buf = new byte[SYSTEM_STRING_SIZE];
    require("nvmlSystemGetNVMLVersion", lib.nvmlSystemGetNVMLVersion(buf, buf.length));
    return string(buf);
  }

  /**
   * The CUDA driver version as NVML encodes it (12040 = 12.4). Asks libcuda through the v2 call
   * when the driver has it, else the v1 call; empty when neither can tell.
   */
  public OptionalInt cudaDriverVersion() {
    int[] version = new int[1];
    if (supports(NvmlCapability.CUDA_DRIVER_VERSION_V2)) {
      int rc =
          record(
              "nvmlSystemGetCudaDriverVersion_v2",
              lib.nvmlSystemGetCudaDriverVersion_v2(version),
              // no libcuda.so.1 here: fall back to v1, which has a built-in answer
              NvmlReturn.ERROR_LIBRARY_NOT_FOUND,
              NvmlReturn.ERROR_FUNCTION_NOT_FOUND);
      if (rc == SUCCESS) {
        return OptionalInt.of(version[0]);
      }
    }
    int rc =
        record(
            "nvmlSystemGetCudaDriverVersion",
            lib.nvmlSystemGetCudaDriverVersion(version),
            NvmlReturn.ERROR_LIBRARY_NOT_FOUND);
    return rc == SUCCESS ? OptionalInt.of(version[0]) : OptionalInt.empty();
  }

  // ------------------------------------------------------------------ enumeration, identity

  /** All GPUs, including ones this process may not be permitted to open. */
  public int deviceCount() {
    int[] count = new int[1];
    require("nvmlDeviceGetCount_v2", lib.nvmlDeviceGetCount_v2(count));
    return count[0];
  }

  public NvmlDevice deviceByIndex(int index) {
    PointerByReference ref = new PointerByReference();
    require("nvmlDeviceGetHandleByIndex_v2", lib.nvmlDeviceGetHandleByIndex_v2(index, ref));
    return new NvmlDevice(ref.getValue());
  }

  public NvmlDevice deviceByUuid(String uuid) {
    PointerByReference ref = new PointerByReference();
    require("nvmlDeviceGetHandleByUUID", lib.nvmlDeviceGetHandleByUUID(uuid, ref));
    return new NvmlDevice(ref.getValue());
  }

  /** Accepts NVML and sysfs forms ({@code 00000000:3B:00.0}, {@code 0000:3b:00.0}). */
  public NvmlDevice deviceByPciBusId(String pciBusId) {
    PointerByReference ref = new PointerByReference();
    require(
        "nvmlDeviceGetHandleByPciBusId_v2", lib.nvmlDeviceGetHandleByPciBusId_v2(pciBusId, ref));
    return new NvmlDevice(ref.getValue());
  }

  /** NVML's index, which is neither the CUDA index nor the minor number. */
  public int index(NvmlDevice device) {
    int[] index = new int[1];
    require("nvmlDeviceGetIndex", lib.nvmlDeviceGetIndex(device.handle(), index));
    return index[0];
  }

  public String uuid(NvmlDevice device) {
    byte[] buf = new byte[DEVICE_STRING_SIZE];
    require("nvmlDeviceGetUUID", lib.nvmlDeviceGetUUID(device.handle(), buf, buf.length));
    return string(buf);
  }

  public String name(NvmlDevice device) {
    byte[] buf = new byte[DEVICE_STRING_SIZE];
    require("nvmlDeviceGetName", lib.nvmlDeviceGetName(device.handle(), buf, buf.length));
    return string(buf);
  }

  /** N in {@code /dev/nvidiaN}; empty where the platform has no such node. */
  public OptionalInt minorNumber(NvmlDevice device) {
    int[] minor = new int[1];
    int rc = lib.nvmlDeviceGetMinorNumber(device.handle(), minor);
    return optional("nvmlDeviceGetMinorNumber", rc)
        ? OptionalInt.of(minor[0])
        : OptionalInt.empty();
  }

  public NvmlPciInfo pciInfo(NvmlDevice device) {
    byte[] pci = new byte[NvmlWords.PCI_INFO_BYTES];
    require("nvmlDeviceGetPciInfo_v3", lib.nvmlDeviceGetPciInfo_v3(device.handle(), pci));
    return NvmlWords.pciInfo(pci);
  }

  // ------------------------------------------------------------------ capabilities of a GPU

  /** Whether MIG is on; empty when the GPU or driver cannot do MIG. */
  public Optional<Boolean> migEnabled(NvmlDevice device) {
    return migMode(device).map(NvmlMigMode::current);
  }

  /** MIG mode now and after the GPU's next reset; empty when the GPU or driver cannot do MIG. */
  public Optional<NvmlMigMode> migMode(NvmlDevice device) {
    if (!supports(NvmlCapability.MIG_MODE)) {
      return Optional.empty();
    }
    int[] current = new int[1];
    int[] pending = new int[1];
    int rc = lib.nvmlDeviceGetMigMode(device.handle(), current, pending);
    return optional("nvmlDeviceGetMigMode", rc)
        ? Optional.of(new NvmlMigMode(current[0] == FEATURE_ENABLED, pending[0] == FEATURE_ENABLED))
        : Optional.empty();
  }

  // ------------------------------------------------------------------ MIG devices

  /**
   * A MIG-enabled GPU's MIG devices with their MIG indices. Indices go sparse once an instance is
   * destroyed: an index with none (NOT_FOUND, or INVALID_ARGUMENT on some drivers) is skipped.
   * Empty when the GPU is not in MIG mode or the driver has no MIG calls.
   */
  public List<NvmlMigHandle> migDevices(NvmlDevice device) {
    if (!supports(NvmlCapability.MIG_DEVICES)) {
      return List.of();
    }
    int[] count = new int[1];
    int rc = lib.nvmlDeviceGetMaxMigDeviceCount(device.handle(), count);
    if (!optional("nvmlDeviceGetMaxMigDeviceCount", rc)) {
      return List.of();
    }
    List<NvmlMigHandle> found = new ArrayList<>();
    for (int index = 0; index < count[0]; index++) {
      PointerByReference ref = new PointerByReference();
      rc = lib.nvmlDeviceGetMigDeviceHandleByIndex(device.handle(), index, ref);
      if (present(
          "nvmlDeviceGetMigDeviceHandleByIndex",
          rc,
          ERROR_NOT_FOUND,
          ERROR_INVALID_ARGUMENT,
          ERROR_NOT_SUPPORTED)) {
        found.add(new NvmlMigHandle(index, new NvmlDevice(ref.getValue())));
      }
    }
    return List.copyOf(found);
  }

  /** The GPU-instance ID of a MIG device. */
  public int gpuInstanceId(NvmlDevice migDevice) {
    int[] id = new int[1];
    require("nvmlDeviceGetGpuInstanceId", lib.nvmlDeviceGetGpuInstanceId(migDevice.handle(), id));
    return id[0];
  }

  /** The compute-instance ID of a MIG device (within its GPU instance). */
  public int computeInstanceId(NvmlDevice migDevice) {
    int[] id = new int[1];
    require(
        "nvmlDeviceGetComputeInstanceId",
        lib.nvmlDeviceGetComputeInstanceId(migDevice.handle(), id));
    return id[0];
  }

  /** A MIG device's share of its GPU; empty where the driver predates the v2 attributes (11.1). */
  public Optional<NvmlMigAttributes> migAttributes(NvmlDevice migDevice) {
    if (!supports(NvmlCapability.MIG_ATTRIBUTES)) {
      return Optional.empty();
    }
    long[] words = new long[NvmlWords.ATTRIBUTES_WORDS];
    int rc = lib.nvmlDeviceGetAttributes_v2(migDevice.handle(), words);
    return optional("nvmlDeviceGetAttributes_v2", rc)
        ? Optional.of(NvmlWords.attributes(words))
        : Optional.empty();
  }

  /**
   * The GPU-instance profiles a MIG-capable GPU offers, by index from 0 until NVML says there are
   * no more (INVALID_ARGUMENT): a count compiled into a header goes stale as drivers add profiles.
   */
  public List<NvmlGpuInstanceProfile> gpuInstanceProfiles(NvmlDevice device) {
    if (!supports(NvmlCapability.MIG_PROFILES)) {
      return List.of();
    }
    List<NvmlGpuInstanceProfile> profiles = new ArrayList<>();
    for (int index = 0; index < MAX_GPU_INSTANCE_PROFILES; index++) {
      long[] words = new long[NvmlWords.GPU_INSTANCE_PROFILE_WORDS];
      int rc = lib.nvmlDeviceGetGpuInstanceProfileInfo(device.handle(), index, words);
      if (rc == ERROR_INVALID_ARGUMENT) {
        record("nvmlDeviceGetGpuInstanceProfileInfo", rc, ERROR_INVALID_ARGUMENT);
        break;
      }
      if (present("nvmlDeviceGetGpuInstanceProfileInfo", rc, ERROR_NOT_SUPPORTED)) {
        profiles.add(NvmlWords.gpuInstanceProfile(index, words));
      }
    }
    return List.copyOf(profiles);
  }

  /**
   * The profile ID of GPU instance {@code gpuInstanceId} on {@code device}. Privileged: throws
   * {@link NvmlException} with NO_PERMISSION when the agent lacks the MIG monitor capability.
   */
  public OptionalInt gpuInstanceProfileId(NvmlDevice device, int gpuInstanceId) {
    if (!supports(NvmlCapability.MIG_PROFILES)) {
      return OptionalInt.empty();
    }
    PointerByReference instance = new PointerByReference();
    int rc = lib.nvmlDeviceGetGpuInstanceById(device.handle(), gpuInstanceId, instance);
    if (!present("nvmlDeviceGetGpuInstanceById", rc, ERROR_NOT_FOUND, ERROR_NOT_SUPPORTED)) {
      return OptionalInt.empty();
    }
    long[] words = new long[NvmlWords.GPU_INSTANCE_INFO_WORDS];
    require("nvmlGpuInstanceGetInfo", lib.nvmlGpuInstanceGetInfo(instance.getValue(), words));
    return OptionalInt.of(NvmlWords.gpuInstanceProfileId(words));
  }

  /** E.g. {@code "9.0"}; empty when the driver cannot tell. */
  public Optional<String> computeCapability(NvmlDevice device) {
    if (!supports(NvmlCapability.CUDA_COMPUTE_CAPABILITY)) {
      return Optional.empty();
    }
    int[] major = new int[1];
    int[] minor = new int[1];
    int rc = lib.nvmlDeviceGetCudaComputeCapability(device.handle(), major, minor);
    return optional("nvmlDeviceGetCudaComputeCapability", rc)
        ? Optional.of(major[0] + "." + minor[0])
        : Optional.empty();
  }

  /** CPUs close to the GPU (its NUMA node), ascending; empty when NVML cannot tell. */
  public List<Integer> cpuAffinity(NvmlDevice device) {
    if (!CpuMask.decodable()) {
      return List.of();
    }
    long[] words = new long[CPU_SET_WORDS];
    int rc = lib.nvmlDeviceGetCpuAffinity(device.handle(), CpuMask.cLongs(words), words);
    if (!optional("nvmlDeviceGetCpuAffinity", rc)) {
      return List.of();
    }
    return CpuMask.toCpuList(words);
  }

  // ------------------------------------------------------------------ topology, NVLink

  /** The {@link NvmlTopologyLevel} of the closest common ancestor of two GPUs. */
  public int topologyCommonAncestor(NvmlDevice a, NvmlDevice b) {
    int[] level = new int[1];
    require(
        "nvmlDeviceGetTopologyCommonAncestor",
        lib.nvmlDeviceGetTopologyCommonAncestor(a.handle(), b.handle(), level));
    return level[0];
  }

  /**
   * Whether NVLink {@code link} is up. Empty when the GPU has no such link (NVML answers
   * NOT_SUPPORTED or INVALID_ARGUMENT past the last link) or the driver lacks NVLink queries, so
   * callers can simply scan links 0..35.
   */
  public Optional<Boolean> nvLinkActive(NvmlDevice device, int link) {
    if (!supports(NvmlCapability.NVLINK_STATE)) {
      return Optional.empty();
    }
    int[] active = new int[1];
    int rc = lib.nvmlDeviceGetNvLinkState(device.handle(), link, active);
    return present("nvmlDeviceGetNvLinkState", rc, ERROR_NOT_SUPPORTED, ERROR_INVALID_ARGUMENT)
        ? Optional.of(active[0] == FEATURE_ENABLED)
        : Optional.empty();
  }

  /** PCI identity of the device at the far end of {@code link}; empty as for nvLinkActive. */
  public Optional<NvmlPciInfo> nvLinkRemotePciInfo(NvmlDevice device, int link) {
    if (!supports(NvmlCapability.NVLINK_REMOTE_PCI_INFO)) {
      return Optional.empty();
    }
    byte[] pci = new byte[NvmlWords.PCI_INFO_BYTES];
    int rc = lib.nvmlDeviceGetNvLinkRemotePciInfo_v2(device.handle(), link, pci);
    return present(
            "nvmlDeviceGetNvLinkRemotePciInfo_v2", rc, ERROR_NOT_SUPPORTED, ERROR_INVALID_ARGUMENT)
        ? Optional.of(NvmlWords.pciInfo(pci))
        : Optional.empty();
  }

  // ------------------------------------------------------------------ telemetry

  /** GPU die temperature, °C. */
  public OptionalInt temperatureCelsius(NvmlDevice device) {
    int[] temp = new int[1];
    int rc = lib.nvmlDeviceGetTemperature(device.handle(), TEMPERATURE_GPU, temp);
    return optional("nvmlDeviceGetTemperature", rc) ? OptionalInt.of(temp[0]) : OptionalInt.empty();
  }

  /** Board power draw in milliwatts (dcgm-exporter reports watts). */
  public OptionalLong powerUsageMilliwatts(NvmlDevice device) {
    int[] power = new int[1];
    int rc = lib.nvmlDeviceGetPowerUsage(device.handle(), power);
    return optional("nvmlDeviceGetPowerUsage", rc)
        ? OptionalLong.of(Integer.toUnsignedLong(power[0]))
        : OptionalLong.empty();
  }

  /** Empty on GPUs that cannot report it, including MIG-enabled ones. */
  public Optional<NvmlUtilization> utilization(NvmlDevice device) {
    int[] percent = new int[NvmlWords.UTILIZATION_INTS];
    int rc = lib.nvmlDeviceGetUtilizationRates(device.handle(), percent);
    return optional("nvmlDeviceGetUtilizationRates", rc)
        ? Optional.of(new NvmlUtilization(percent[0], percent[1]))
        : Optional.empty();
  }

  /**
   * Memory totals; uses the v2 call (which reports the driver's reservation) when available. Empty
   * where the GPU has no dedicated memory.
   */
  public Optional<NvmlMemoryInfo> memoryInfo(NvmlDevice device) {
    if (supports(NvmlCapability.MEMORY_INFO_V2)) {
      long[] words = NvmlWords.memoryV2Request();
      int rc = lib.nvmlDeviceGetMemoryInfo_v2(device.handle(), words);
      return optional("nvmlDeviceGetMemoryInfo_v2", rc)
          ? Optional.of(NvmlWords.memoryV2(words))
          : Optional.empty();
    }
    long[] words = new long[NvmlWords.MEMORY_WORDS];
    int rc = lib.nvmlDeviceGetMemoryInfo(device.handle(), words);
    return optional("nvmlDeviceGetMemoryInfo", rc)
        ? Optional.of(NvmlWords.memory(words))
        : Optional.empty();
  }

  /** ECC error count; empty when ECC is off or unsupported. */
  public OptionalLong totalEccErrors(
      NvmlDevice device, NvmlEccErrorType type, NvmlEccCounter counter) {
    long[] count = new long[1];
    int rc = lib.nvmlDeviceGetTotalEccErrors(device.handle(), type.code, counter.code, count);
    return optional("nvmlDeviceGetTotalEccErrors", rc)
        ? OptionalLong.of(count[0])
        : OptionalLong.empty();
  }

  /** Whether retired pages wait for a reboot/reset to take effect; empty without ECC. */
  public Optional<Boolean> retiredPagesPending(NvmlDevice device) {
    int[] pending = new int[1];
    int rc = lib.nvmlDeviceGetRetiredPagesPendingStatus(device.handle(), pending);
    return optional("nvmlDeviceGetRetiredPagesPendingStatus", rc)
        ? Optional.of(pending[0] == FEATURE_ENABLED)
        : Optional.empty();
  }

  /** SM clock in MHz ({@code NVML_CLOCK_SM}). */
  public OptionalInt smClockMhz(NvmlDevice device) {
    return clockMhz(device, CLOCK_SM);
  }

  /** Memory clock in MHz ({@code NVML_CLOCK_MEM}). */
  public OptionalInt memoryClockMhz(NvmlDevice device) {
    return clockMhz(device, CLOCK_MEM);
  }

  private OptionalInt clockMhz(NvmlDevice device, int type) {
    int[] mhz = new int[1];
    int rc = lib.nvmlDeviceGetClockInfo(device.handle(), type, mhz);
    return optional("nvmlDeviceGetClockInfo", rc) ? OptionalInt.of(mhz[0]) : OptionalInt.empty();
  }

  /** Energy since the driver was loaded, in millijoules (Volta and later). */
  public OptionalLong totalEnergyMillijoules(NvmlDevice device) {
    long[] energy = new long[1];
    int rc = lib.nvmlDeviceGetTotalEnergyConsumption(device.handle(), energy);
    return optional("nvmlDeviceGetTotalEnergyConsumption", rc)
        ? OptionalLong.of(energy[0])
        : OptionalLong.empty();
  }

  /** PCIe replays (link-level retransmissions) since the driver was loaded. */
  public OptionalLong pcieReplays(NvmlDevice device) {
    int[] count = new int[1];
    int rc = lib.nvmlDeviceGetPcieReplayCounter(device.handle(), count);
    return optional("nvmlDeviceGetPcieReplayCounter", rc)
        ? OptionalLong.of(Integer.toUnsignedLong(count[0]))
        : OptionalLong.empty();
  }

  /** Video encoder utilisation, percent; empty on MIG-enabled GPUs and GPUs without one. */
  public OptionalInt encoderUtilizationPercent(NvmlDevice device) {
    int[] percent = new int[1];
    int rc = lib.nvmlDeviceGetEncoderUtilization(device.handle(), percent, new int[1]);
    return optional("nvmlDeviceGetEncoderUtilization", rc)
        ? OptionalInt.of(percent[0])
        : OptionalInt.empty();
  }

  /** Video decoder utilisation, percent; empty on MIG-enabled GPUs and GPUs without one. */
  public OptionalInt decoderUtilizationPercent(NvmlDevice device) {
    int[] percent = new int[1];
    int rc = lib.nvmlDeviceGetDecoderUtilization(device.handle(), percent, new int[1]);
    return optional("nvmlDeviceGetDecoderUtilization", rc)
        ? OptionalInt.of(percent[0])
        : OptionalInt.empty();
  }

  /**
   * Row remapping counts; empty before Ampere, with active MIG instances, and on drivers without
   * the function (checked through {@link NvmlCapability#REMAPPED_ROWS}, so no warning per GPU).
   */
  public Optional<NvmlRemappedRows> remappedRows(NvmlDevice device) {
    if (!supports(NvmlCapability.REMAPPED_ROWS)) {
      return Optional.empty();
    }
    int[] corrected = new int[1];
    int[] uncorrected = new int[1];
    int[] pending = new int[1];
    int[] failed = new int[1];
    int rc =
        lib.nvmlDeviceGetRemappedRows(device.handle(), corrected, uncorrected, pending, failed);
    return optional("nvmlDeviceGetRemappedRows", rc)
        ? Optional.of(
            new NvmlRemappedRows(
                Integer.toUnsignedLong(corrected[0]),
                Integer.toUnsignedLong(uncorrected[0]),
                pending[0] != 0,
                failed[0] != 0))
        : Optional.empty();
  }

  /**
   * Reads {@code fields} in one {@code nvmlDeviceGetFieldValues} call. A field the GPU does not
   * support (its own return code NOT_SUPPORTED, or any other per-field failure) is absent from the
   * result; so is everything on a driver without the function.
   */
  public Map<NvmlField, Double> fieldValues(NvmlDevice device, Set<NvmlField> fields) {
    if (fields.isEmpty()) {
      return Map.of();
    }
    List<NvmlField> asked = List.copyOf(fields);
    long[] values = NvmlWords.fieldValuesRequest(asked);
    int rc = lib.nvmlDeviceGetFieldValues(device.handle(), asked.size(), values);
    if (!optional("nvmlDeviceGetFieldValues", rc)) {
      return Map.of();
    }
    Map<NvmlField, Double> read = new EnumMap<>(NvmlField.class);
    for (int i = 0; i < asked.size(); i++) {
      NvmlField field = asked.get(i);
      if (NvmlWords.fieldReturn(values, i) == SUCCESS) {
        NvmlWords.fieldValue(values, i).ifPresent(v -> read.put(field, v));
      }
    }
    return read;
  }

  // ------------------------------------------------------------------ events

  public NvmlEventSet createEventSet() {
    PointerByReference ref = new PointerByReference();
    require("nvmlEventSetCreate", lib.nvmlEventSetCreate(ref));
    return new NvmlEventSet(this, ref.getValue());
  }

  /** Mask of {@link NvmlEventType} bits the GPU can raise. */
  public long supportedEventTypes(NvmlDevice device) {
    long[] types = new long[1];
    require(
        "nvmlDeviceGetSupportedEventTypes",
        lib.nvmlDeviceGetSupportedEventTypes(device.handle(), types));
    return types[0];
  }

  /**
   * Starts recording {@code mask} events of {@code device} into {@code set}. Events that happen
   * before this call are lost, so register before advertising devices. NOT_SUPPORTED (a type the
   * GPU cannot raise) is thrown like any error; mask with {@link #supportedEventTypes} first.
   */
  public void registerEvents(NvmlDevice device, long mask, NvmlEventSet set) {
    require(
        "nvmlDeviceRegisterEvents",
        lib.nvmlDeviceRegisterEvents(device.handle(), mask, set.handle()));
  }

  /**
   * Blocks up to {@code timeoutMs} for the next event. Empty on timeout (NVML may also time out
   * early); throws for anything else, notably GPU_IS_LOST when a GPU registered in the set fell off
   * the bus. The wait is native and cannot be interrupted: use short timeouts as the cancellation
   * point. A {@link #close()} meanwhile does not wait for it (see there); once closed, this throws
   * UNINITIALIZED at once.
   */
  public Optional<NvmlEvent> waitForEvent(NvmlEventSet set, int timeoutMs) {
    if (!enterSetCall()) {
      throw new NvmlException("nvmlEventSetWait_v2", ERROR_UNINITIALIZED);
    }
    try {
      long[] data = new long[NvmlWords.EVENT_DATA_WORDS];
      int rc =
          record(
              "nvmlEventSetWait_v2",
              lib.nvmlEventSetWait_v2(set.handle(), data, timeoutMs),
              ERROR_TIMEOUT);
      if (rc == ERROR_TIMEOUT) {
        return Optional.empty();
      }
      if (rc != SUCCESS) {
        throw new NvmlException("nvmlEventSetWait_v2", rc);
      }
      NvmlDevice device = new NvmlDevice(new Pointer(data[0]));
      Optional<String> uuid;
      try {
        uuid = Optional.of(uuid(device));
      } catch (NvmlException e) {
        uuid = Optional.empty();
      }
      return Optional.of(NvmlWords.event(data, device, uuid));
    } finally {
      leaveSetCall();
    }
  }

  /** Logs instead of throwing, like {@link #close()}. */
  void freeEventSet(NvmlEventSet set) {
    if (!enterSetCall()) {
      return; // closed: nvmlShutdown releases every event set
    }
    try {
      bestEffort("nvmlEventSetFree", lib.nvmlEventSetFree(set.handle()));
    } finally {
      leaveSetCall();
    }
  }

  // ------------------------------------------------------------------ plumbing

  /** Records the call; {@code expected} codes are outcomes, not errors. Returns {@code rc}. */
  private int record(String function, int rc, int... expected) {
    boolean error = rc != SUCCESS;
    for (int e : expected) {
      if (rc == e) {
        error = false;
        break;
      }
    }
    stats.record(function, error);
    return rc;
  }

  private void bestEffort(String function, int rc) {
    if (record(function, rc) != SUCCESS) {
      log.warn("{} failed: {}", function, NvmlReturn.describe(rc));
    }
  }

  private void require(String function, int rc) {
    if (record(function, rc) != SUCCESS) {
      throw new NvmlException(function, rc);
    }
  }

  /** True on success, false on NOT_SUPPORTED, throws otherwise. */
  private boolean optional(String function, int rc) {
    return present(function, rc, ERROR_NOT_SUPPORTED);
  }

  /**
   * True on success, false for any of {@code absent} or a function this NVML lacks, throws
   * otherwise.
   */
  private boolean present(String function, int rc, int... absent) {
    if (rc == ERROR_FUNCTION_NOT_FOUND) {
      record(function, rc);
      return false;
    }
    if (record(function, rc, absent) == SUCCESS) {
      return true;
    }
    for (int a : absent) {
      if (rc == a) {
        return false;
      }
    }
    throw new NvmlException(function, rc);
  }

  /** NVML strings are NUL-terminated ASCII. */
  private static String string(byte[] buf) {
    return Native.toString(buf, StandardCharsets.US_ASCII);
  }

  @Override
  public String toString() {
    return "Nvml[" + source + "]";
  }
}
