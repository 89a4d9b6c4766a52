package io.acceld.nvml;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a one-off inventory of the node's GPUs from NVML: identity, PCI address, memory, CPU
 * affinity, MIG and compute capability per GPU, plus topology level and NVLink count per pair.
 *
 * <p>One broken GPU must not hide the others: a GPU that fails part-way is reported with what could
 * be read (a lost GPU gets {@code lost=true}); one whose PCI address cannot be read is skipped with
 * a WARN, since without it the GPU cannot be matched to anything.
 */
public final class NvmlProbe {
  private static final Logger log = LoggerFactory.getLogger(NvmlProbe.class);

  /** NVML_NVLINK_MAX_LINKS is 18 in NVML 12 headers and 36 in 13: scanning to 36 covers both. */
  static final int MAX_NVLINKS = 36;

  private final Nvml nvml;

  public NvmlProbe(Nvml nvml) {
    this.nvml = nvml;
  }

  /**
   * Probes every GPU NVML counts.
   *
   * @throws NvmlException only if NVML cannot even count GPUs
   */
  public NvmlNodeInfo probe() {
    String driver = nodeValue("driver version", nvml::driverVersion);
    String cuda =
        nodeValue(
            "CUDA version",
            () -> {
              OptionalInt v = nvml.cudaDriverVersion();
              return v.isPresent() ? cudaVersion(v.getAsInt()) : null;
            });
    int count = nvml.deviceCount();
    List<ProbedGpu> probed = new ArrayList<>();
    for (int index = 0; index < count; index++) {
      probeGpu(index).ifPresent(probed::add);
    }
    return new NvmlNodeInfo(
        driver, cuda, probed.stream().map(ProbedGpu::gpu).toList(), links(probed));
  }

  /** NVML encodes CUDA versions as {@code major * 1000 + minor * 10}: 12040 is "12.4". */
  static String cudaVersion(int encoded) {
    return encoded / 1000 + "." + (encoded % 1000) / 10;
  }

  private record ProbedGpu(NvmlDevice device, NvmlGpu gpu, List<String> nvlinkPeers) {}

  private Optional<ProbedGpu> probeGpu(int index) {
    NvmlDevice device;
    String pciAddress;
    try {
      device = nvml.deviceByIndex(index);
      pciAddress = nvml.pciInfo(device).sysfsAddress();
    } catch (NvmlException e) {
      log.warn("Skipping GPU {}: its PCI address is unreadable ({})", index, e.getMessage());
      return Optional.empty();
    }
    GpuReader read = new GpuReader(index, pciAddress);
    String uuid = read.value("UUID", () -> nvml.uuid(device), null);
    String name = read.value("name", () -> nvml.name(device), null);
    int minor = read.value("minor number", () -> nvml.minorNumber(device).orElse(-1), -1);
    long memory =
        read.value(
            "memory",
            () -> nvml.memoryInfo(device).map(NvmlMemoryInfo::totalBytes).orElse(-1L),
            -1L);
    List<Integer> cpus = read.value("CPU affinity", () -> nvml.cpuAffinity(device), List.of());
    Optional<Boolean> mig = read.value("MIG mode", () -> nvml.migEnabled(device), Optional.empty());
    Optional<String> cc =
        read.value("compute capability", () -> nvml.computeCapability(device), Optional.empty());
    List<String> peers = read.value("NVLinks", () -> nvlinkPeers(device), List.of());
    NvmlGpu gpu =
        new NvmlGpu(index, uuid, name, minor, pciAddress, memory, cpus, mig, cc, read.lost);
    return Optional.of(new ProbedGpu(device, gpu, peers));
  }

  /** PCI addresses at the far end of each active NVLink, one entry per link. */
  private List<String> nvlinkPeers(NvmlDevice device) {
    if (!nvml.supports(NvmlCapability.NVLINK_STATE)
        || !nvml.supports(NvmlCapability.NVLINK_REMOTE_PCI_INFO)) {
      return List.of();
    }
    List<String> peers = new ArrayList<>();
    for (int link = 0; link < MAX_NVLINKS; link++) {
      if (nvml.nvLinkActive(device, link).orElse(false)) {
        nvml.nvLinkRemotePciInfo(device, link).ifPresent(p -> peers.add(p.sysfsAddress()));
      }
    }
    return peers;
  }

  private List<NvmlGpuLink> links(List<ProbedGpu> gpus) {
    List<NvmlGpuLink> links = new ArrayList<>();
    for (int i = 0; i < gpus.size(); i++) {
      for (int j = i + 1; j < gpus.size(); j++) {
        ProbedGpu a = gpus.get(i);
        ProbedGpu b = gpus.get(j);
        String addressB = b.gpu().pciAddress();
        int nvlinks = (int) a.nvlinkPeers().stream().filter(addressB::equals).count();
        links.add(new NvmlGpuLink(a.gpu().pciAddress(), addressB, topologyLevel(a, b), nvlinks));
      }
    }
    return links;
  }

  private int topologyLevel(ProbedGpu a, ProbedGpu b) {
    if (a.gpu().lost() || b.gpu().lost()) {
      return NvmlTopologyLevel.UNKNOWN; // asking would only repeat GPU_IS_LOST
    }
    try {
      return nvml.topologyCommonAncestor(a.device(), b.device());
    } catch (NvmlException e) {
      log.warn(
          "Topology between GPUs {} and {} unknown: {}",
          a.gpu().pciAddress(),
          b.gpu().pciAddress(),
          e.getMessage());
      return NvmlTopologyLevel.UNKNOWN;
    }
  }

  private static String nodeValue(String what, Supplier<String> call) {
    try {
      return call.get();
    } catch (NvmlException e) {
      log.warn("NVML cannot report the {}: {}", what, e.getMessage());
      return null;
    }
  }

  /**
   * Reads one GPU's attributes, turning failures into fallbacks. Once the GPU reports GPU_IS_LOST
   * it is marked lost and not asked again: every further call would fail the same way.
   */
  private static final class GpuReader {
    private final int index;
    private final String pciAddress;
    private boolean lost;

    GpuReader(int index, String pciAddress) {
      this.index = index;
      this.pciAddress = pciAddress;
    }

    <T> T value(String what, Supplier<T> call, T fallback) {
      if (lost) {
        return fallback;
      }
      try {
        return call.get();
      } catch (NvmlException e) {
        if (e.isGpuLost()) {
          lost = true;
          log.warn("GPU {} ({}) is lost: {}", index, pciAddress, e.getMessage());
        } else {
          log.warn("GPU {} ({}): cannot read {}: {}", index, pciAddress, what, e.getMessage());
        }
        return fallback;
      }
    }
  }
}
