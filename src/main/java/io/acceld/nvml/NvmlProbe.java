package io.acceld.nvml;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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

  // Said once per GPU for the life of the agent, not at every scan.
  private final Set<String> noPermission = ConcurrentHashMap.newKeySet();
  private final Set<String> namedWithoutProfile = ConcurrentHashMap.newKeySet();

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
  public static String cudaVersion(int encoded) {
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
    Optional<NvmlMigMode> mig =
        read.value("MIG mode", () -> nvml.migMode(device), Optional.empty());
    Optional<String> cc =
        read.value("compute capability", () -> nvml.computeCapability(device), Optional.empty());
    List<String> peers = read.value("NVLinks", () -> nvlinkPeers(device), List.of());
    List<NvmlMigDevice> migDevices =
        mig.map(NvmlMigMode::current).orElse(false)
            ? read.value("MIG devices", () -> migDevices(device, uuid, memory), List.of())
            : List.of();
    NvmlGpu gpu =
        new NvmlGpu(
            index,
            uuid,
            name,
            minor,
            pciAddress,
            memory,
            cpus,
            mig.map(NvmlMigMode::current),
            cc,
            read.lost,
            mig.map(NvmlMigMode::pending),
            migDevices);
    return Optional.of(new ProbedGpu(device, gpu, peers));
  }

  /**
   * Reads the MIG mode and MIG devices of every MIG-capable GPU in {@code info} again, keeping the
   * rest: a few calls per GPU, so a long-running agent sees a re-partition at its next scan without
   * probing everything again. A GPU that fails is kept as it was, with a WARN.
   */
  public NvmlNodeInfo refreshMig(NvmlNodeInfo info) {
    List<NvmlGpu> gpus = new ArrayList<>();
    for (NvmlGpu gpu : info.gpus()) {
      if (gpu.migEnabled().isEmpty() || gpu.lost() || gpu.uuid() == null) {
        gpus.add(gpu);
        continue;
      }
      try {
        NvmlDevice device = nvml.deviceByUuid(gpu.uuid());
        Optional<NvmlMigMode> mode = nvml.migMode(device);
        List<NvmlMigDevice> devices =
            mode.map(NvmlMigMode::current).orElse(false)
                ? migDevices(device, gpu.uuid(), gpu.memoryBytes())
                : List.of();
        gpus.add(
            gpu.withMig(mode.map(NvmlMigMode::current), mode.map(NvmlMigMode::pending), devices));
      } catch (NvmlException e) {
        log.warn(
            "GPU {} ({}): cannot read its MIG devices again: {}",
            gpu.index(),
            gpu.pciAddress(),
            e.getMessage());
        gpus.add(gpu);
      }
    }
    return new NvmlNodeInfo(info.driverVersion(), info.cudaVersion(), gpus, info.links());
  }

  /**
   * The MIG devices of a GPU in MIG mode, each with its profile string. The profile's index (which
   * gives G and the suffix) takes the privileged GPU-instance lookup; without it the name is built
   * from slice counts and memory, said once per GPU.
   */
  private List<NvmlMigDevice> migDevices(NvmlDevice parent, String parentUuid, long parentMemory) {
    List<NvmlMigHandle> handles = nvml.migDevices(parent);
    if (handles.isEmpty()) {
      return List.of();
    }
    List<NvmlGpuInstanceProfile> profiles = null;
    boolean unnamed = false;
    List<NvmlMigDevice> devices = new ArrayList<>();
    for (NvmlMigHandle h : handles) {
      NvmlDevice mig = h.device();
      String uuid = nvml.uuid(mig);
      int gi = nvml.gpuInstanceId(mig);
      int ci = nvml.computeInstanceId(mig);
      Optional<NvmlMigAttributes> attributes = nvml.migAttributes(mig);
      long memory = nvml.memoryInfo(mig).map(NvmlMemoryInfo::totalBytes).orElse(-1L);
      long memoryMiB =
          attributes.map(NvmlMigAttributes::memoryMiB).orElse(memory >= 0 ? memory >> 20 : 0L);
      Optional<MigProfiles.Shape> shape = Optional.empty();
      try {
        OptionalInt profileId = nvml.gpuInstanceProfileId(parent, gi);
        if (profileId.isPresent()) {
          if (profiles == null) {
            profiles = nvml.gpuInstanceProfiles(parent);
          }
          shape =
              profiles.stream()
                  .filter(p -> p.id() == profileId.getAsInt())
                  .findFirst()
                  .flatMap(p -> MigProfiles.shapeOf(p.index()));
        }
      } catch (NvmlException e) {
        if (e.returnCode() == NvmlReturn.ERROR_NO_PERMISSION) {
          noMonitorCapability(parentUuid);
        } else {
          throw e;
        }
      }
      int gpuSlices =
          shape
              .map(MigProfiles.Shape::slices)
              .orElse(attributes.map(NvmlMigAttributes::gpuInstanceSlices).orElse(0));
      int computeSlices =
          attributes.map(NvmlMigAttributes::computeInstanceSlices).orElse(gpuSlices);
      String profile =
          MigProfiles.name(
              computeSlices,
              gpuSlices,
              memoryMiB,
              parentMemory,
              shape.map(MigProfiles.Shape::suffix).orElse(""));
      unnamed |= shape.isEmpty();
      devices.add(
          new NvmlMigDevice(
              h.migIndex(),
              uuid,
              gi,
              ci,
              profile,
              shape.isPresent(),
              memory >= 0 ? memory : memoryMiB << 20,
              attributes));
    }
    if (unnamed && namedWithoutProfile.add(parentUuid)) {
      log.warn(
          "GPU {}: NVML cannot name the MIG profile of some of its devices; they are named from"
              + " their slice counts and memory ({})",
          parentUuid,
          devices.stream()
              .filter(d -> !d.profileNamed())
              .map(NvmlMigDevice::profile)
              .distinct()
              .toList());
    }
    return List.copyOf(devices);
  }

  /** Once per GPU: the fix for NO_PERMISSION is the operator's. */
  private void noMonitorCapability(String parentUuid) {
    if (noPermission.add(parentUuid)) {
      log.error(
          "GPU {}: NVML answers NO_PERMISSION for its MIG instances: the agent lacks the MIG"
              + " monitor capability. Give it read access to /dev/nvidia-caps/nvidia-cap2 (in a"
              + " container: NVIDIA_MIG_MONITOR_DEVICES=all, or mount the nvidia-caps monitor"
              + " node); until then MIG profiles are named from slice counts and memory",
          parentUuid);
    }
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
