package io.acceld.inventory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
 */
public record NodeInfo(
    Optional<String> nvidiaDriverVersion,
    Optional<String> cudaVersion,
    SortedSet<String> emptyResources,
    List<String> problems) {
  public static final NodeInfo EMPTY = new NodeInfo(Optional.empty(), Optional.empty());

  public NodeInfo {
    emptyResources = Collections.unmodifiableSortedSet(new TreeSet<>(emptyResources));
    problems = List.copyOf(problems);
  }

  public NodeInfo(Optional<String> nvidiaDriverVersion, Optional<String> cudaVersion) {
    this(nvidiaDriverVersion, cudaVersion, new TreeSet<>(), List.of());
  }

  /** This node with {@code resources} advertised empty and {@code problem} added. */
  public NodeInfo withProblem(SortedSet<String> resources, String problem) {
    SortedSet<String> empty = new TreeSet<>(emptyResources);
    empty.addAll(resources);
    List<String> all = new ArrayList<>(problems);
    all.add(problem);
    return new NodeInfo(nvidiaDriverVersion, cudaVersion, empty, all);
  }
}
