package io.acceld.discovery;

import io.acceld.config.MigStrategy;
import io.acceld.inventory.AmdDetails;
import io.acceld.inventory.Device;
import io.acceld.inventory.HealthProblem;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.inventory.PciAddresses;
import io.acceld.inventory.PcieLevel;
import io.acceld.inventory.PhysicalGpu;
import io.acceld.inventory.Topology;
import io.acceld.nvml.NvmlGpu;
import io.acceld.nvml.NvmlMigDevice;
import io.acceld.nvml.NvmlNodeInfo;
import io.acceld.util.ClientText;
import io.acceld.util.RateLimitedLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One discovery pass: sysfs PCI scan, classification into resources, NVML enrichment joined by PCI
 * address, device-node checks and pairwise topology, giving an immutable {@link Inventory}.
 *
 * <p>NVML is optional. Without it NVIDIA GPUs are identified by PCI address and their minor numbers
 * come from the driver's procfs files, or from PCI order, which is how the driver assigns them.
 */
public final class InventoryScanner {
  private static final Logger log = LoggerFactory.getLogger(InventoryScanner.class);

  private final Path sysfsRoot;
  private final SysfsPciScanner pci;
  private final DeviceClassifier classifier;
  private final DeviceNodeResolver nodes;
  private final Path devRoot;
  private final Path procRoot;
  private final NvidiaSource nvidia;
  private final MigStrategy migStrategy;

  // Said once per state, not at every scan: a pending MIG mode, a broken single strategy.
  private final Set<String> pendingWarned = ConcurrentHashMap.newKeySet();
  private volatile Optional<String> lastViolation = Optional.empty();

  /** A fault in the hardware's data repeats on every rescan; say so now and then, not each time. */
  private final RateLimitedLog faults = new RateLimitedLog(log, Duration.ofMinutes(10));

  public InventoryScanner(
      Path sysfsRoot,
      Path devRoot,
      Path procRoot,
      DeviceClassifier classifier,
      NvidiaSource nvidia) {
    this(sysfsRoot, devRoot, procRoot, classifier, nvidia, MigStrategy.NONE);
  }

  public InventoryScanner(
      Path sysfsRoot,
      Path devRoot,
      Path procRoot,
      DeviceClassifier classifier,
      NvidiaSource nvidia,
      MigStrategy migStrategy) {
    this.migStrategy = migStrategy;
    this.sysfsRoot = sysfsRoot;
    this.pci = new SysfsPciScanner(sysfsRoot);
    this.classifier = classifier;
    this.nodes = new DeviceNodeResolver(devRoot);
    this.devRoot = devRoot;
    this.procRoot = procRoot;
    this.nvidia = nvidia;
  }

  /** Sysfs reads that blocked and have not returned: see {@link SysfsPciScanner#blockedReads}. */
  public List<String> blockedReads() {
    return pci.blockedReads();
  }

  public Inventory scan() {
    // Classify once: the same decision picks the NVIDIA GPUs for NVML and the devices to build.
    // A list, not a map keyed by device: nothing looks a device up, and hashing or comparing a
    // 17-part record costs every scan, and the first start its equals' bootstrap.
    List<Claimed> claimed = new ArrayList<>();
    for (PciDevice d : pci.scan(classifier::claims)) {
      classifier.classify(d).ifPresent(resource -> claimed.add(new Claimed(d, resource)));
    }
    List<PciDevice> nvidiaInPciOrder =
        claimed.stream()
            .map(Claimed::device)
            .filter(d -> d.vendor() == DeviceClassifier.VENDOR_NVIDIA)
            .toList();
    Optional<NvmlNodeInfo> nvmlInfo =
        nvidiaInPciOrder.isEmpty()
            ? Optional.empty()
            : nvidia.info(
                nvidiaInPciOrder.stream().map(PciDevice::address).collect(Collectors.toSet()));
    NvmlRecords records = nvmlInfo.map(i -> NvmlRecords.index(i.gpus())).orElse(NvmlRecords.NONE);
    Map<String, NvmlGpu> gpusByAddress = new HashMap<>(records.byAddress());
    records.conflicts().values().forEach(reason -> faults.warn("{}", reason));

    records.byAddress().values().forEach(this::warnPendingMigMode);
    // Read once per scan, and only on a node with AMD devices to describe.
    KfdTopology kfd =
        claimed.stream().anyMatch(c -> c.device().vendor() == DeviceClassifier.VENDOR_AMD)
            ? KfdTopology.read(sysfsRoot)
            : KfdTopology.NONE;
    List<PhysicalGpu> nvidiaGpus = new ArrayList<>();
    MigExpansion mig =
        new MigExpansion(
            migStrategy,
            devRoot,
            procRoot,
            records.byAddress().values().stream().anyMatch(MigExpansion::inMigMode));
    List<Device> devices = new ArrayList<>();
    Map<String, PciDevice> pciById = new HashMap<>();
    int nvidiaIndex = 0;
    for (Claimed entry : claimed) {
      PciDevice d = entry.device();
      boolean nvidia = d.vendor() == DeviceClassifier.VENDOR_NVIDIA;
      NvmlGpu gpu = nvidia ? gpusByAddress.remove(d.address()) : null;
      List<HealthProblem> conflicts =
          nvidia && records.conflicts().containsKey(d.address())
              ? List.of(
                  HealthProblem.of(
                      HealthProblem.Kind.NVML_ERROR, records.conflicts().get(d.address())))
              : List.of();
      Optional<NvidiaProcInfo> proc =
          nvidia ? NvidiaProcInfo.read(procRoot, d.address()) : Optional.empty();
      Device built =
          build(d, entry.resource(), gpu, proc, nvidia ? nvidiaIndex++ : -1, conflicts, kfd);
      if (nvidia) {
        nvidiaGpus.add(physical(built, d, gpu, namedModel(d, gpu, proc)));
      }
      for (Device device : nvidia ? mig.expand(built, gpu) : List.of(built)) {
        if (pciById.containsKey(device.id())) {
          // Any other source of a repeated ID must still cost one device, never the whole scan.
          faults.warn(
              "Leaving out the device at {}: its ID {} is already the device at {}'s",
              d.address(),
              ClientText.quote(device.id()),
              pciById.get(device.id()).address());
          continue;
        }
        devices.add(device);
        pciById.put(device.id(), d);
      }
    }
    if (!gpusByAddress.isEmpty()) {
      log.warn(
          "NVML reports GPUs that sysfs does not show under the sysfs root: {}",
          gpusByAddress.keySet());
    }

    NodeInfo node =
        nvmlInfo
            .map(
                i ->
                    new NodeInfo(
                        Optional.ofNullable(i.driverVersion()),
                        Optional.ofNullable(i.cudaVersion())))
            .orElse(NodeInfo.EMPTY)
            .withHardware(machine(), byNvmlIndex(nvidiaGpus));
    MigExpansion.Result result = mig.finish(devices, node);
    reportViolation(result.violation());
    return new Inventory(
        result.devices(),
        result.node(),
        topology(result.devices(), pciById, nvmlInfo, records.conflicts().keySet()));
  }

  /** A function a classification rule claimed, and the resource it is published under. */
  private record Claimed(PciDevice device, String resource) {}

  /** A GPU whose MIG mode changes at its next reset: one WARN, and the change is seen then. */
  private void warnPendingMigMode(NvmlGpu gpu) {
    if (gpu.migEnabled().isEmpty() || gpu.migPending().isEmpty()) {
      return;
    }
    boolean current = gpu.migEnabled().get();
    boolean pending = gpu.migPending().get();
    String key = gpu.pciAddress() + (pending ? " on" : " off");
    if (current == pending) {
      pendingWarned.remove(gpu.pciAddress() + " on");
      pendingWarned.remove(gpu.pciAddress() + " off");
    } else if (pendingWarned.add(key)) {
      log.warn(
          "GPU {} ({}): MIG mode is {} now and {} after the GPU is next reset; advertised as it"
              + " is now until then",
          gpu.uuid(),
          gpu.pciAddress(),
          current ? "enabled" : "disabled",
          pending ? "enabled" : "disabled");
    }
  }

  /** One ERROR per distinct violation of the single strategy's rules, and one INFO when mended. */
  private void reportViolation(Optional<String> violation) {
    Optional<String> previous = lastViolation;
    lastViolation = violation;
    if (violation.isPresent() && !violation.equals(previous)) {
      log.error("{}: no GPU of the node is advertised until this is fixed", violation.get());
    } else if (violation.isEmpty() && previous.isPresent()) {
      log.info("The node meets --mig-strategy single's rules again");
    }
  }

  /**
   * The machine's model from its DMI {@code product_name}, as GPU Feature Discovery reads it for
   * {@code nvidia.com/gpu.machine}; empty where firmware does not say (VMs without DMI, non-x86).
   */
  private Optional<String> machine() {
    Path file = sysfsRoot.resolve("class/dmi/id/product_name");
    try {
      return Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip())
          .filter(s -> !s.isEmpty());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** An NVIDIA GPU as found, before the MIG strategy replaces or withdraws it. */
  private static PhysicalGpu physical(
      Device whole, PciDevice d, NvmlGpu gpu, Optional<String> model) {
    if (gpu == null || whole.nvidia().isEmpty()) {
      return new PhysicalGpu(
          whole.id(),
          d.address(),
          -1,
          model,
          d.classCode(),
          OptionalLong.empty(),
          Optional.empty(),
          Optional.empty(),
          List.of());
    }
    return new PhysicalGpu(
        whole.id(),
        d.address(),
        gpu.index(),
        model,
        d.classCode(),
        gpu.memoryBytes() >= 0 ? OptionalLong.of(gpu.memoryBytes()) : OptionalLong.empty(),
        gpu.computeCapability(),
        gpu.migEnabled(),
        MigExpansion.inMigMode(gpu)
            ? gpu.migDevices().stream().map(NvmlMigDevice::profile).toList()
            : List.of());
  }

  /** NVML's order, which GPU Feature Discovery's "first GPU" follows; then PCI order. */
  private static List<PhysicalGpu> byNvmlIndex(List<PhysicalGpu> gpus) {
    List<PhysicalGpu> sorted = new ArrayList<>(gpus);
    sorted.sort(
        Comparator.comparingInt(
                (PhysicalGpu g) -> g.seenByNvml() ? g.nvmlIndex() : Integer.MAX_VALUE)
            .thenComparing(PhysicalGpu::pciAddress));
    return sorted;
  }

  private Device build(
      PciDevice d,
      String resource,
      NvmlGpu gpu,
      Optional<NvidiaProcInfo> proc,
      int nvidiaPciOrder,
      List<HealthProblem> conflicts,
      KfdTopology kfd) {
    DeviceNodes found = resolveNodes(d, gpu, proc, nvidiaPciOrder);

    List<HealthProblem> problems = new ArrayList<>(conflicts);
    if (gpu != null && gpu.lost()) {
      problems.add(HealthProblem.gpuLost());
    }
    for (String missing : found.missing()) {
      problems.add(HealthProblem.deviceNodeMissing(devRoot.resolve(missing)));
    }

    String id =
        gpu != null && gpu.uuid() != null && !gpu.uuid().isBlank() ? gpu.uuid() : d.address();
    Optional<NvidiaDetails> details =
        gpu == null
            ? Optional.empty()
            : Optional.of(
                new NvidiaDetails(
                    gpu.uuid(),
                    gpu.index(),
                    gpu.minor(),
                    gpu.memoryBytes(),
                    gpu.cpuAffinity(),
                    gpu.migEnabled(),
                    gpu.computeCapability()));
    return new Device(
        id,
        resource,
        d.vendor(),
        d.device(),
        model(d, gpu, proc),
        d.address(),
        d.numaNode(),
        d.driver(),
        found.present(),
        problems,
        details,
        d.vendor() == DeviceClassifier.VENDOR_AMD ? Optional.of(amd(d, kfd)) : Optional.empty());
  }

  /** What amdgpu's sysfs and the KFD node of the device's render node say about an AMD GPU. */
  private static AmdDetails amd(PciDevice d, KfdTopology kfd) {
    Optional<KfdTopology.GpuNode> node =
        d.drmNodes().stream()
            .map(KfdTopology::renderMinor)
            .filter(OptionalInt::isPresent)
            .map(OptionalInt::getAsInt)
            .findFirst()
            .flatMap(kfd::gpu);
    AmdgpuAttributes attributes = d.amdgpu();
    return new AmdDetails(
        d.productName(),
        node.map(KfdTopology.GpuNode::vramBytes).orElse(OptionalLong.empty()),
        node.map(KfdTopology.GpuNode::simdCount).orElse(OptionalInt.empty()),
        node.map(KfdTopology.GpuNode::simdPerCu).orElse(OptionalInt.empty()),
        attributes.driverVersion(),
        attributes.driverSrcVersion(),
        attributes.computePartition(),
        attributes.memoryPartition(),
        attributes.computePartitioning(),
        attributes.memoryPartitioning());
  }

  private DeviceNodes resolveNodes(
      PciDevice d, NvmlGpu gpu, Optional<NvidiaProcInfo> proc, int nvidiaPciOrder) {
    return switch (d.vendor()) {
      case DeviceClassifier.VENDOR_NVIDIA ->
          nodes.nvidia(d, nvidiaMinor(gpu, proc, nvidiaPciOrder));
      case DeviceClassifier.VENDOR_AMD -> nodes.amd(d);
      case DeviceClassifier.VENDOR_HABANA -> nodes.habana(d);
      default -> nodes.generic(d);
    };
  }

  private static OptionalInt nvidiaMinor(NvmlGpu gpu, Optional<NvidiaProcInfo> proc, int pciOrder) {
    if (gpu != null && gpu.minor() >= 0) {
      return OptionalInt.of(gpu.minor());
    }
    OptionalInt fromProc = proc.map(NvidiaProcInfo::minor).orElse(OptionalInt.empty());
    if (fromProc.isPresent()) {
      return fromProc;
    }
    // The driver numbers GPUs in PCI probe order; the best guess when nothing else says.
    return pciOrder >= 0 ? OptionalInt.of(pciOrder) : OptionalInt.empty();
  }

  private static String model(PciDevice d, NvmlGpu gpu, Optional<NvidiaProcInfo> proc) {
    return namedModel(d, gpu, proc)
        .orElseGet(
            () -> vendorName(d.vendor()) + String.format(Locale.ROOT, " [%04x]", d.device()));
  }

  /** The model as NVML, the NVIDIA driver or sysfs names it; empty when none does. */
  private static Optional<String> namedModel(
      PciDevice d, NvmlGpu gpu, Optional<NvidiaProcInfo> proc) {
    if (gpu != null && gpu.name() != null && !gpu.name().isBlank()) {
      return Optional.of(gpu.name());
    }
    return proc.flatMap(NvidiaProcInfo::model).or(d::productName);
  }

  static String vendorName(int vendor) {
    return switch (vendor) {
      case DeviceClassifier.VENDOR_NVIDIA -> "NVIDIA";
      case DeviceClassifier.VENDOR_AMD -> "AMD";
      case DeviceClassifier.VENDOR_INTEL -> "Intel";
      case DeviceClassifier.VENDOR_HABANA -> "Habana";
      default -> String.format(Locale.ROOT, "PCI vendor 0x%04x", vendor);
    };
  }

  private static Topology topology(
      List<Device> devices,
      Map<String, PciDevice> pciById,
      Optional<NvmlNodeInfo> nvmlInfo,
      Set<String> conflicting) {
    // NVML's view, keyed by PCI address; a pair NVML did not report reads as UNKNOWN, no NVLinks.
    // Links of addresses whose NVML records conflict are ignored with the rest of their data.
    Topology.Builder byAddress = Topology.builder();
    nvmlInfo.ifPresent(
        info ->
            info.links()
                .forEach(
                    l -> {
                      String a = PciAddresses.normalise(l.pciAddressA()).orElse(l.pciAddressA());
                      String b = PciAddresses.normalise(l.pciAddressB()).orElse(l.pciAddressB());
                      if (!a.equals(b) && !conflicting.contains(a) && !conflicting.contains(b)) {
                        byAddress.put(
                            a, b, PcieLevel.fromNvml(l.topologyLevel()), Math.max(0, l.nvlinks()));
                      }
                    }));
    Topology nvml = byAddress.build();
    Topology.Builder topology = Topology.builder();
    for (int i = 0; i < devices.size(); i++) {
      for (int j = i + 1; j < devices.size(); j++) {
        Device a = devices.get(i);
        Device b = devices.get(j);
        if (!a.resource().equals(b.resource())) {
          continue;
        }
        if (a.pciAddress().equals(b.pciAddress())) {
          topology.put(a.id(), b.id(), PcieLevel.INTERNAL, 0); // MIG devices of one GPU
          continue;
        }
        Topology.Link link = nvml.link(a.pciAddress(), b.pciAddress());
        PcieLevel level =
            link.level() == PcieLevel.UNKNOWN
                ? PcieFabric.level(pciById.get(a.id()), pciById.get(b.id()))
                : link.level();
        topology.put(a.id(), b.id(), level, link.nvlinks());
      }
    }
    return topology.build();
  }
}
