package io.acceld.discovery;

import io.acceld.config.MigStrategy;
import io.acceld.inventory.Device;
import io.acceld.inventory.HealthProblem;
import io.acceld.inventory.MigAttributes;
import io.acceld.inventory.MigDetails;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.nvml.MigProfiles;
import io.acceld.nvml.NvmlGpu;
import io.acceld.nvml.NvmlMigAttributes;
import io.acceld.nvml.NvmlMigDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Applies the MIG strategy to one scan's NVIDIA GPUs: under {@code single} and {@code mixed} a
 * MIG-enabled GPU is replaced by its MIG devices, each a {@link Device} of its own (ID its MIG
 * UUID, the parent's NUMA node and PCI address, the parent's device nodes plus its two {@code
 * nvidia-caps} access nodes); under {@code none} nothing changes. Everything downstream (health,
 * the ledger, every publisher) then sees MIG devices as devices.
 *
 * <p>One scan, one instance: {@link #expand} collects what {@link #finish} needs to check the
 * {@code single} strategy's rules, which hold for the node, not for one GPU.
 */
final class MigExpansion {
  private final MigStrategy strategy;
  private final Path devRoot;
  private final MigMinors minors;

  // What finish() checks under single.
  private final List<String> emptyMigGpus = new ArrayList<>();
  private final List<String> wholeGpus = new ArrayList<>();
  private final Set<String> profiles = new TreeSet<>();
  private final Set<String> migGpus = new LinkedHashSet<>();
  private final Set<String> singleResources = new TreeSet<>();

  MigExpansion(MigStrategy strategy, Path devRoot, Path procRoot, boolean anyMigGpu) {
    this.strategy = strategy;
    this.devRoot = devRoot;
    // Only a MIG node's scans read the table.
    this.minors =
        anyMigGpu && strategy != MigStrategy.NONE
            ? MigMinors.read(procRoot)
            : new MigMinors(java.util.Map.of(), Optional.empty());
  }

  static boolean inMigMode(NvmlGpu gpu) {
    return gpu != null && gpu.migEnabled().orElse(false);
  }

  /**
   * What {@code whole} (an NVIDIA GPU as discovery built it) is advertised as: itself, or under
   * {@code single}/{@code mixed} its MIG devices if it is in MIG mode.
   */
  List<Device> expand(Device whole, NvmlGpu gpu) {
    boolean gpuResource = whole.nvidia().isPresent();
    if (strategy == MigStrategy.NONE || !inMigMode(gpu)) {
      if (strategy == MigStrategy.SINGLE && gpuResource) {
        wholeGpus.add(whole.id());
        singleResources.add(whole.resource());
      }
      return List.of(whole);
    }
    migGpus.add(whole.id());
    singleResources.add(whole.resource());
    if (gpu.migDevices().isEmpty()) {
      emptyMigGpus.add(whole.id());
    }
    List<Device> devices = new ArrayList<>();
    for (NvmlMigDevice mig : gpu.migDevices()) {
      profiles.add(mig.profile());
      devices.add(migDevice(whole, gpu, mig));
    }
    return devices;
  }

  private Device migDevice(Device parent, NvmlGpu gpu, NvmlMigDevice mig) {
    List<String> nodes = new ArrayList<>(parent.deviceNodes());
    List<HealthProblem> problems = new ArrayList<>(parent.problems());
    accessNodes(gpu.minor(), mig, nodes, problems);
    NvidiaDetails parentDetails = parent.nvidia().orElseThrow();
    Optional<NvmlMigAttributes> attributes = mig.attributes();
    MigDetails details =
        new MigDetails(
            parentDetails.uuid(),
            mig.profile(),
            mig.gpuInstanceId(),
            mig.computeInstanceId(),
            mig.migIndex(),
            attributes.map(MigExpansion::share));
    String resource =
        strategy == MigStrategy.SINGLE
            ? parent.resource()
            : MigProfiles.resourceName(domainOf(parent.resource()), mig.profile());
    return new Device(
        mig.uuid(),
        resource,
        parent.vendorId(),
        parent.deviceId(),
        parent.model() + " MIG " + mig.profile(),
        parent.pciAddress(),
        parent.numaNode(),
        parent.driver(),
        nodes,
        problems,
        Optional.of(
            new NvidiaDetails(
                mig.uuid(),
                parentDetails.index(),
                parentDetails.minor(),
                mig.memoryBytes(),
                parentDetails.cpuAffinity(),
                Optional.empty(),
                parentDetails.computeCapability(),
                Optional.of(details))));
  }

  /**
   * The GPU- and compute-instance access nodes, {@code nvidia-caps/nvidia-cap<minor>} with minors
   * from {@code mig-minors}; a missing table, entry or node is a problem of this device only.
   */
  private void accessNodes(
      int parentMinor, NvmlMigDevice mig, List<String> nodes, List<HealthProblem> problems) {
    if (minors.problem().isPresent()) {
      problems.add(
          HealthProblem.of(
              HealthProblem.Kind.DEVICE_NODE_MISSING,
              "MIG access nodes unknown: " + minors.problem().get()));
      return;
    }
    if (parentMinor < 0) {
      problems.add(
          HealthProblem.of(
              HealthProblem.Kind.DEVICE_NODE_MISSING,
              "MIG access nodes unknown: the parent GPU's minor number is unknown"));
      return;
    }
    for (String capability :
        List.of(
            MigMinors.gpuInstance(parentMinor, mig.gpuInstanceId()),
            MigMinors.computeInstance(parentMinor, mig.gpuInstanceId(), mig.computeInstanceId()))) {
      OptionalInt minor = minors.minor(capability);
      if (minor.isEmpty()) {
        problems.add(
            HealthProblem.of(
                HealthProblem.Kind.DEVICE_NODE_MISSING,
                "mig-minors has no entry for " + capability));
        continue;
      }
      String node = "nvidia-caps/nvidia-cap" + minor.getAsInt();
      if (Files.exists(devRoot.resolve(node))) {
        nodes.add(node);
      } else {
        problems.add(HealthProblem.deviceNodeMissing(devRoot.resolve(node)));
      }
    }
  }

  private static MigAttributes share(NvmlMigAttributes a) {
    return new MigAttributes(
        a.multiprocessors(),
        a.copyEngines(),
        a.decoders(),
        a.encoders(),
        a.jpegs(),
        a.ofas(),
        a.gpuInstanceSlices(),
        a.computeInstanceSlices(),
        a.memoryMiB());
  }

  private static String domainOf(String resource) {
    int slash = resource.indexOf('/');
    return slash > 0 ? resource.substring(0, slash) : resource;
  }

  /**
   * The rule the node breaks under {@code single}, if any: then none of its GPUs is advertised
   * (never a wrong list).
   */
  Optional<String> singleViolation() {
    if (strategy != MigStrategy.SINGLE || migGpus.isEmpty()) {
      return Optional.empty(); // no MIG-enabled GPU: single is none
    }
    List<String> broken = new ArrayList<>();
    if (!wholeGpus.isEmpty()) {
      broken.add(
          "whole GPUs "
              + String.join(", ", wholeGpus)
              + " beside MIG-enabled GPUs "
              + String.join(", ", migGpus)
              + " (all GPUs must have the same MIG mode)");
    }
    if (!emptyMigGpus.isEmpty()) {
      broken.add("MIG-enabled GPUs without MIG devices: " + String.join(", ", emptyMigGpus));
    }
    if (profiles.size() > 1) {
      broken.add("more than one MIG profile: " + String.join(", ", profiles));
    }
    return broken.isEmpty()
        ? Optional.empty()
        : Optional.of("--mig-strategy single: " + String.join("; ", broken));
  }

  /**
   * The scan's devices and node facts under the strategy: under a broken {@code single}, every
   * device of the GPU resource is withdrawn and the resource advertised empty.
   */
  Result finish(List<Device> devices, NodeInfo node) {
    Optional<String> violation = singleViolation();
    if (violation.isEmpty()) {
      return new Result(devices, node, violation);
    }
    SortedSet<String> empty = new TreeSet<>(singleResources);
    List<Device> kept =
        devices.stream().filter(d -> !empty.contains(d.resource())).collect(Collectors.toList());
    return new Result(
        kept,
        node.withProblem(
            empty, violation.get() + "; advertising " + String.join(", ", empty) + " with 0"),
        violation);
  }

  record Result(List<Device> devices, NodeInfo node, Optional<String> violation) {}
}
