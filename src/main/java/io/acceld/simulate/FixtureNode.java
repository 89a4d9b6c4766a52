package io.acceld.simulate;

import io.acceld.inventory.PcieLevel;
import java.util.List;

/**
 * A fixture node: its file tree, and the NVIDIA GPUs and links the NVML double should report for
 * it. A node without NVIDIA GPUs has empty lists.
 */
public record FixtureNode(FakeNodeTree tree, List<SimulatedGpu> gpus, List<GpuLink> links) {

  /** The NVML view of one GPU pair, by NVML index. */
  public record GpuLink(int a, int b, PcieLevel level, int nvlinks) {}

  public FixtureNode {
    gpus = List.copyOf(gpus);
    links = List.copyOf(links);
  }
}
