package io.acceld.simulate;

import io.acceld.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A scenario for the NVML test double ({@code native-probes/}): which GPUs a simulated node has and
 * how they are connected. Rendered to {@code nvml-scenario.conf}, which the double reads next to
 * its {@code libnvidia-ml.so.1} on the first {@code nvmlInit}.
 *
 * <p>Immutable: every method returns a new scenario, so tests can derive variants from a shared
 * base. GPUs are numbered in the order they are added; {@link #topology} and {@link #nvlink} refer
 * to those numbers.
 *
 * <pre>{@code
 * NvmlScenario.empty()
 *     .driver("550.54.15")
 *     .cuda(12040)
 *     .gpu(NvmlScenario.Gpu.of("GPU-0b3f...", "0000:18:00.0").name("NVIDIA H100 80GB HBM3"))
 *     .gpu(NvmlScenario.Gpu.of("GPU-5c1e...", "0000:2a:00.0"))
 *     .topology(0, 1, 10)
 *     .nvlink(0, 1, 18)
 *     .writeTo(dir);
 * }</pre>
 */
public final class NvmlScenario {
  /** The file name the double looks for next to the library. */
  public static final String FILE_NAME = "nvml-scenario.conf";

  private final String driver;
  private final Integer cuda;
  private final Integer initError;
  private final List<Gpu> gpus;
  private final List<int[]> topology;
  private final List<int[]> nvlinks;

  private NvmlScenario(
      String driver,
      Integer cuda,
      Integer initError,
      List<Gpu> gpus,
      List<int[]> topology,
      List<int[]> nvlinks) {
    this.driver = driver;
    this.cuda = cuda;
    this.initError = initError;
    this.gpus = List.copyOf(gpus);
    this.topology = List.copyOf(topology);
    this.nvlinks = List.copyOf(nvlinks);
  }

  /** No GPUs, driver and CUDA version left to the double's defaults. */
  public static NvmlScenario empty() {
    return new NvmlScenario(null, null, null, List.of(), List.of(), List.of());
  }

  /** Reported by {@code nvmlSystemGetDriverVersion}, e.g. {@code 550.54.15}. */
  public NvmlScenario driver(String version) {
    return new NvmlScenario(
        Values.token("driver", version), cuda, initError, gpus, topology, nvlinks);
  }

  /** CUDA driver version as NVML encodes it: 12040 for 12.4. */
  public NvmlScenario cuda(int encodedVersion) {
    Values.check(encodedVersion > 0, "cuda version must be positive: " + encodedVersion);
    return new NvmlScenario(driver, encodedVersion, initError, gpus, topology, nvlinks);
  }

  /**
   * Makes {@code nvmlInit_v2} fail with this NVML return code. Package-private: only the test
   * fixtures' {@code NvmlFaults} injects it.
   */
  NvmlScenario withInitError(int nvmlReturnCode) {
    Values.check(nvmlReturnCode >= 0, "return code must not be negative: " + nvmlReturnCode);
    return new NvmlScenario(driver, cuda, nvmlReturnCode, gpus, topology, nvlinks);
  }

  /** Adds a GPU; its NVML index is the number of GPUs added before it. */
  public NvmlScenario gpu(Gpu gpu) {
    Objects.requireNonNull(gpu, "gpu");
    List<Gpu> more = new ArrayList<>(gpus);
    more.add(gpu);
    return new NvmlScenario(driver, cuda, initError, more, topology, nvlinks);
  }

  /**
   * Sets the NVML topology level between two GPUs (both directions). Unset pairs get NODE (40) on
   * the same NUMA node, else SYSTEM (50).
   */
  public NvmlScenario topology(int gpuA, int gpuB, int level) {
    Values.check(level >= 0, "topology level must not be negative: " + level);
    List<int[]> more = new ArrayList<>(topology);
    more.add(pair(gpuA, gpuB, level));
    return new NvmlScenario(driver, cuda, initError, gpus, more, nvlinks);
  }

  /** Adds {@code links} active NVLinks between two GPUs (at most 36 per GPU in total). */
  public NvmlScenario nvlink(int gpuA, int gpuB, int links) {
    Values.check(links > 0 && links <= 36, "links must be 1..36: " + links);
    List<int[]> more = new ArrayList<>(nvlinks);
    more.add(pair(gpuA, gpuB, links));
    return new NvmlScenario(driver, cuda, initError, gpus, topology, more);
  }

  /**
   * Adds many GPUs, topology levels and NVLink counts at once ({@code {a, b, value}} triples), as
   * the single-item methods would one by one: a big fixture node has tens of thousands of pairs,
   * which one copy per pair would make quadratic.
   */
  NvmlScenario withAll(List<Gpu> moreGpus, List<int[]> moreTopology, List<int[]> moreNvlinks) {
    List<Gpu> g = new ArrayList<>(gpus);
    g.addAll(moreGpus);
    List<int[]> t = new ArrayList<>(topology);
    for (int[] p : moreTopology) {
      Values.check(p[2] >= 0, "topology level must not be negative: " + p[2]);
      t.add(pair(p[0], p[1], p[2]));
    }
    List<int[]> n = new ArrayList<>(nvlinks);
    for (int[] p : moreNvlinks) {
      Values.check(p[2] > 0 && p[2] <= 36, "links must be 1..36: " + p[2]);
      n.add(pair(p[0], p[1], p[2]));
    }
    return new NvmlScenario(driver, cuda, initError, g, t, n);
  }

  public List<Gpu> gpus() {
    return gpus;
  }

  /**
   * The scenario file's text.
   *
   * @throws IllegalStateException if a topology or NVLink line names a GPU that was not added
   */
  public String render() {
    StringBuilder out = new StringBuilder("# NVML test double scenario (io.acceld.simulate)\n");
    if (driver != null) {
      out.append("driver ").append(driver).append('\n');
    }
    if (cuda != null) {
      out.append("cuda ").append(cuda).append('\n');
    }
    if (initError != null) {
      out.append("init-error ").append(initError).append('\n');
    }
    for (Gpu gpu : gpus) {
      out.append(gpu.render()).append('\n');
    }
    for (int i = 0; i < gpus.size(); i++) {
      if (!gpus.get(i).migDevices().isEmpty()) {
        out.append("mig ").append(i);
        gpus.get(i).migDevices().forEach(p -> out.append(' ').append(p));
        out.append('\n');
      }
    }
    appendPairs(out, "topo", topology);
    appendPairs(out, "nvlink", nvlinks);
    return out.toString();
  }

  /**
   * Writes {@link #FILE_NAME} into {@code dir} (created if needed). The file is replaced
   * atomically, so a library initialising concurrently never reads half a scenario.
   *
   * @return the written file
   */
  public Path writeTo(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path target = dir.resolve(FILE_NAME);
    AtomicFiles.write(target, render().getBytes(StandardCharsets.UTF_8), AtomicFiles.OWNER_ONLY);
    return target;
  }

  @Override
  public String toString() {
    return render();
  }

  private static int[] pair(int a, int b, int value) {
    Values.check(a >= 0 && b >= 0 && a != b, "need two different GPU indices: " + a + ", " + b);
    return new int[] {a, b, value};
  }

  private void appendPairs(StringBuilder out, String directive, List<int[]> pairs) {
    for (int[] p : pairs) {
      if (p[0] >= gpus.size() || p[1] >= gpus.size()) {
        throw new IllegalStateException(
            directive + " " + p[0] + " " + p[1] + ": only " + gpus.size() + " GPUs added");
      }
      out.append(directive).append(' ').append(p[0]).append(' ').append(p[1]);
      out.append(' ').append(p[2]).append('\n');
    }
  }

  /** MIG capability of a simulated GPU. */
  public enum Mig {
    DISABLED("0"),
    ENABLED("1"),
    /** Not MIG-capable: NVML answers NOT_SUPPORTED. */
    UNSUPPORTED("unsupported");

    private final String value;

    Mig(String value) {
      this.value = value;
    }
  }

  /**
   * One simulated GPU. Immutable like the scenario. Attributes left unset take the double's
   * defaults: minor = index, 80 GiB, NUMA -1, no CPUs, events XID|DBE|SBE, ECC on; MIG, compute
   * capability, temperature, power and utilisation unset mean NOT_SUPPORTED.
   */
  public static final class Gpu {
    private final Map<String, String> attributes;
    private final List<String> migDevices;

    private Gpu(Map<String, String> attributes, List<String> migDevices) {
      this.attributes = attributes;
      this.migDevices = List.copyOf(migDevices);
    }

    /**
     * @param uuid e.g. {@code GPU-0b3f4c1d-...}
     * @param pciAddress e.g. {@code 0000:18:00.0} (NVML's 8-digit upper-case form works too)
     */
    public static Gpu of(String uuid, String pciAddress) {
      Map<String, String> attributes = new LinkedHashMap<>();
      attributes.put("uuid", Values.token("uuid", uuid));
      Values.check(
          Values.PCI_ADDRESS.matcher(pciAddress).matches(), "not a PCI address: " + pciAddress);
      attributes.put("bus", pciAddress);
      return new Gpu(attributes, List.of());
    }

    public String uuid() {
      return attributes.get("uuid");
    }

    public String pciAddress() {
      return attributes.get("bus");
    }

    /** Model name, e.g. {@code NVIDIA H100 80GB HBM3}. */
    public Gpu name(String name) {
      Values.check(name.length() < 96, "name too long");
      return with("name", Values.text("name", name));
    }

    /** {@code (deviceId << 16) | vendorId}, e.g. {@code 0x233010de}. */
    public Gpu pciDeviceId(int pciDeviceId) {
      return with("pciid", String.format(Locale.ROOT, "0x%08x", pciDeviceId));
    }

    public Gpu minor(int minor) {
      Values.check(minor >= 0, "minor must not be negative");
      return with("minor", Integer.toString(minor));
    }

    public Gpu memoryBytes(long bytes) {
      Values.check(bytes >= 0, "memory must not be negative");
      return with("memory", Long.toString(bytes));
    }

    public Gpu memoryUsedBytes(long bytes) {
      Values.check(bytes >= 0, "used memory must not be negative");
      return with("memused", Long.toString(bytes));
    }

    /** Decides the default topology to other GPUs (same node: NODE, else SYSTEM). */
    public Gpu numaNode(int node) {
      Values.check(node >= -1, "NUMA node must be >= -1");
      return with("numa", Integer.toString(node));
    }

    /** CPU list in sysfs {@code local_cpulist} form, e.g. {@code 0-31,64-95}. */
    public Gpu cpus(String cpuList) {
      Values.check(Values.CPU_LIST.matcher(cpuList).matches(), "not a CPU list: " + cpuList);
      return with("cpus", cpuList);
    }

    public Gpu mig(Mig mig) {
      return with("mig", mig.value);
    }

    /** The MIG mode after the GPU's next reset (NVML's pending mode); the current one if unset. */
    public Gpu migPending(boolean enabled) {
      return with("mig-pending", enabled ? "1" : "0");
    }

    /** False: the agent lacks the MIG monitor capability (GPU-instance lookups: NO_PERMISSION). */
    public Gpu migMonitor(boolean allowed) {
      return with("mig-monitor", allowed ? "1" : "0");
    }

    /**
     * The GPU's MIG devices by profile ({@code 1g.10gb}, {@code 1c.3g.40gb}; {@code @<gi>} picks
     * the GPU-instance ID); needs {@link #mig(Mig)} ENABLED.
     */
    public Gpu migDevices(List<String> profiles) {
      profiles.forEach(p -> Values.token("MIG profile", p));
      return new Gpu(attributes, profiles);
    }

    public List<String> migDevices() {
      return migDevices;
    }

    /** E.g. {@code 9.0}. */
    public Gpu computeCapability(String majorDotMinor) {
      Values.check(
          majorDotMinor.matches("\\d+\\.\\d+"), "not a compute capability: " + majorDotMinor);
      return with("cc", majorDotMinor);
    }

    public Gpu temperatureCelsius(int celsius) {
      Values.check(celsius >= 0, "temperature must not be negative");
      return with("temp", Integer.toString(celsius));
    }

    public Gpu powerMilliwatts(int milliwatts) {
      Values.check(milliwatts >= 0, "power must not be negative");
      return with("power", Integer.toString(milliwatts));
    }

    public Gpu utilization(int gpuPercent, int memoryPercent) {
      Values.check(
          gpuPercent >= 0 && gpuPercent <= 100 && memoryPercent >= 0 && memoryPercent <= 100,
          "utilisation must be 0..100");
      return with("util", gpuPercent + "/" + memoryPercent);
    }

    /** SM and memory clocks in MHz ({@code nvmlDeviceGetClockInfo}). */
    public Gpu clocksMhz(int sm, int memory) {
      Values.check(sm >= 0 && memory >= 0, "clocks must not be negative");
      return with("smclock", Integer.toString(sm)).with("memclock", Integer.toString(memory));
    }

    /** Energy since the driver was loaded ({@code nvmlDeviceGetTotalEnergyConsumption}). */
    public Gpu totalEnergyMillijoules(long millijoules) {
      Values.check(millijoules >= 0, "energy must not be negative");
      return with("energy", Long.toString(millijoules));
    }

    /** {@code nvmlDeviceGetPcieReplayCounter}. */
    public Gpu pcieReplays(long replays) {
      Values.check(replays >= 0 && replays <= 0xffff_ffffL, "replays must be 0..2^32-1");
      return with("pcie-replays", Long.toString(replays));
    }

    /** Video encoder and decoder utilisation, percent. */
    public Gpu codecUtilization(int encoderPercent, int decoderPercent) {
      Values.check(
          encoderPercent >= 0
              && encoderPercent <= 100
              && decoderPercent >= 0
              && decoderPercent <= 100,
          "utilisation must be 0..100");
      return with("enc", Integer.toString(encoderPercent))
          .with("dec", Integer.toString(decoderPercent));
    }

    /** {@code nvmlDeviceGetRemappedRows}: rows remapped, a pending remap, a failed remap. */
    public Gpu remappedRows(int correctable, int uncorrectable, boolean pending, boolean failed) {
      Values.check(correctable >= 0 && uncorrectable >= 0, "rows must not be negative");
      return with(
          "remapped",
          correctable + "/" + uncorrectable + "/" + (pending ? 1 : 0) + "/" + (failed ? 1 : 0));
    }

    /** Memory (HBM) temperature, read through {@code NVML_FI_DEV_MEMORY_TEMP}. */
    public Gpu memoryTemperatureCelsius(int celsius) {
      Values.check(celsius >= 0, "temperature must not be negative");
      return with("memtemp", Integer.toString(celsius));
    }

    /** NVLink error totals over all links: CRC flit, CRC data, replay, recovery. */
    public Gpu nvlinkErrors(long crcFlit, long crcData, long replay, long recovery) {
      Values.check(
          crcFlit >= 0 && crcData >= 0 && replay >= 0 && recovery >= 0,
          "NVLink error counts must not be negative");
      return with("nvlink-errors", crcFlit + "/" + crcData + "/" + replay + "/" + recovery);
    }

    /**
     * Makes NVML answer NOT_SUPPORTED for one reading that an earlier call (or a shared base
     * scenario) set: {@code temp}, {@code smclock}, {@code memclock}, {@code energy}, {@code
     * pcie-replays}, {@code enc}, {@code dec}, {@code remapped}, {@code memtemp} or {@code
     * nvlink-errors}.
     */
    public Gpu unsupported(String reading) {
      Values.check(UNSUPPORTABLE.contains(reading), "cannot mark unsupported: " + reading);
      return with(reading, "unsupported");
    }

    private static final java.util.Set<String> UNSUPPORTABLE =
        java.util.Set.of(
            "temp",
            "smclock",
            "memclock",
            "energy",
            "pcie-replays",
            "enc",
            "dec",
            "remapped",
            "memtemp",
            "nvlink-errors");

    /**
     * Sets one attribute as the double's {@code gpu} line spells it. Package-private: the fault
     * knobs that use it directly ({@code events}, {@code ecc}, {@code lost}) are the test fixtures'
     * {@code NvmlFaults}.
     */
    Gpu with(String key, String value) {
      Map<String, String> copy = new LinkedHashMap<>(attributes);
      copy.put(key, value);
      return new Gpu(copy, migDevices);
    }

    String render() {
      StringBuilder line = new StringBuilder("gpu");
      attributes.forEach((k, v) -> line.append(' ').append(k).append('=').append(Values.quote(v)));
      return line.toString();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Gpu other
          && attributes.equals(other.attributes)
          && migDevices.equals(other.migDevices);
    }

    @Override
    public int hashCode() {
      return attributes.hashCode() * 31 + migDevices.hashCode();
    }

    @Override
    public String toString() {
      return render();
    }
  }

  /** Validation and quoting shared by the scenario and its GPUs. */
  private static final class Values {
    static final Pattern PCI_ADDRESS =
        Pattern.compile("([0-9a-fA-F]{4}|[0-9a-fA-F]{8}):[0-9a-fA-F]{2}:[01][0-9a-fA-F]\\.[0-7]");
    static final Pattern CPU_LIST = Pattern.compile("(\\d+(-\\d+)?(,\\d+(-\\d+)?)*)?");

    private Values() {}

    static void check(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }

    /** A value the file format cannot carry would silently turn into a different scenario. */
    static String text(String what, String value) {
      Objects.requireNonNull(value, what);
      check(
          value.indexOf('"') < 0 && value.indexOf('\n') < 0 && value.indexOf('\r') < 0,
          what + " must not contain quotes or line breaks: " + value);
      return value;
    }

    /** A single word: no blanks, quotes or comment marks. */
    static String token(String what, String value) {
      text(what, value);
      check(
          !value.isEmpty() && !value.matches(".*[\\s#].*"),
          what + " must be one non-empty word: " + value);
      return value;
    }

    static String quote(String value) {
      return value.isEmpty() || value.matches(".*[\\s#].*") ? '"' + value + '"' : value;
    }
  }
}
