package io.acceld.simulate;

import io.acceld.config.MigLayout;
import io.acceld.inventory.PcieLevel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A fixture node: its file tree, and the NVIDIA GPUs and links the NVML double should report for
 * it. A node without NVIDIA GPUs has empty lists.
 */
public record FixtureNode(
    FakeNodeTree tree, List<SimulatedGpu> gpus, List<GpuLink> links, MigLayout mig) {

  /** The NVML view of one GPU pair, by NVML index. */
  public record GpuLink(int a, int b, PcieLevel level, int nvlinks) {}

  public FixtureNode {
    gpus = List.copyOf(gpus);
    links = List.copyOf(links);
    Objects.requireNonNull(mig, "mig");
  }

  /** A node without MIG. */
  public FixtureNode(FakeNodeTree tree, List<SimulatedGpu> gpus, List<GpuLink> links) {
    this(tree, gpus, links, MigLayout.NONE);
  }

  /** What the NVML double should report for this node: the same GPUs, levels and NVLinks. */
  public NvmlScenario nvmlScenario() {
    List<NvmlScenario.Gpu> nvmlGpus = new ArrayList<>(gpus.size());
    for (SimulatedGpu g : gpus) {
      List<String> migDevices = mig.profiles().get(g.index());
      NvmlScenario.Gpu gpu =
          NvmlScenario.Gpu.of(g.uuid(), g.pciAddress().toUpperCase(Locale.ROOT))
              .name(g.name())
              .pciDeviceId((g.pciDeviceId() << 16) | 0x10de)
              .minor(g.minor())
              .memoryBytes(g.memoryBytes())
              .memoryUsedBytes(512L << 20)
              .numaNode(g.numaNode())
              .cpus(g.cpus())
              .mig(NvmlScenario.Mig.DISABLED)
              .computeCapability("9.0")
              .temperatureCelsius(34 + g.index() % Fixtures.GROUP_SIZE)
              .powerMilliwatts(70_000 + 1_000 * (g.index() % Fixtures.GROUP_SIZE))
              .utilization(0, 0)
              .codecUtilization(0, 0)
              .clocksMhz(1980, 2619)
              .totalEnergyMillijoules(1_000_000L * (1 + g.index()))
              .pcieReplays(0)
              .remappedRows(0, 0, false, false)
              .memoryTemperatureCelsius(44 + g.index() % Fixtures.GROUP_SIZE);
      nvmlGpus.add(
          migDevices == null ? gpu : gpu.mig(NvmlScenario.Mig.ENABLED).migDevices(migDevices));
    }
    List<int[]> topology = new ArrayList<>(links.size());
    List<int[]> nvlinks = new ArrayList<>();
    for (GpuLink link : links) {
      topology.add(new int[] {link.a(), link.b(), link.level().nvmlValue()});
      if (link.nvlinks() > 0) {
        nvlinks.add(new int[] {link.a(), link.b(), link.nvlinks()});
      }
    }
    return NvmlScenario.empty()
        .driver(Fixtures.NVIDIA_DRIVER)
        .cuda(Fixtures.CUDA_DRIVER)
        .withAll(nvmlGpus, topology, nvlinks);
  }
}
