package io.acceld.inventory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Facts about the node rather than one device.
 *
 * @param nvidiaDriverVersion the NVIDIA driver version, when NVML is loaded
 * @param cudaVersion the CUDA driver API version, such as {@code 12.4}
 * @param emptyResources resources to advertise although they have no device now (the {@code single}
 *     MIG strategy's {@code nvidia.com/gpu} on a node that breaks its rules): the kubelet is told 0
 *     devices rather than left with a stale list
 * @param problems why the node is not ready, one sentence each ({@code /readyz} answers 503)
 * @param machine the machine's model as its firmware names it (DMI {@code product_name}, such as
 *     {@code PowerEdge XE9680}), when sysfs has it
 * @param nvidiaGpus the node's NVIDIA GPUs whatever the MIG strategy advertises of them, in NVML
 *     index order (then PCI order for those NVML does not know)
 */
public record NodeInfo(
    Optional<String> nvidiaDriverVersion,
    Optional<String> cudaVersion,
    SortedSet<String> emptyResources,
    List<String> problems,
    Optional<String> machine,
    List<PhysicalGpu> nvidiaGpus) {
  public static final NodeInfo EMPTY = new NodeInfo(Optional.empty(), Optional.empty());

  public NodeInfo {
    emptyResources = Collections.unmodifiableSortedSet(new TreeSet<>(emptyResources));
    problems = List.copyOf(problems);
    Objects.requireNonNull(machine, "machine");
    nvidiaGpus = List.copyOf(nvidiaGpus);
  }

  public NodeInfo(Optional<String> nvidiaDriverVersion, Optional<String> cudaVersion) {
    this(nvidiaDriverVersion, cudaVersion, new TreeSet<>(), List.of(), Optional.empty(), List.of());
  }

  /** This node with what discovery found of its machine and its NVIDIA GPUs. */
  public NodeInfo withHardware(Optional<String> machineModel, List<PhysicalGpu> gpus) {
    return new NodeInfo(
        nvidiaDriverVersion, cudaVersion, emptyResources, problems, machineModel, gpus);
  }

  /** This node with {@code resources} advertised empty and {@code problem} added. */
  public NodeInfo withProblem(SortedSet<String> resources, String problem) {
    SortedSet<String> empty = new TreeSet<>(emptyResources);
    empty.addAll(resources);
    List<String> all = new ArrayList<>(problems);
    all.add(problem);
    return new NodeInfo(nvidiaDriverVersion, cudaVersion, empty, all, machine, nvidiaGpus);
  }
}
