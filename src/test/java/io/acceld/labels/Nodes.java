package io.acceld.labels;

import io.acceld.config.MigStrategy;
import io.acceld.config.SharingPolicy;
import io.acceld.inventory.AmdDetails;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.PhysicalGpu;
import io.acceld.inventory.Topology;
import io.acceld.testing.TestDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** Hand-made nodes for label tests that need no file tree: inventories as discovery makes them. */
final class Nodes {
  static final String H100 = "NVIDIA H100 80GB HBM3";
  static final String A100 = "NVIDIA A100-SXM4-80GB";

  private Nodes() {}

  /** GPU {@code index} as discovery finds it: seen by NVML, compute mode. */
  static PhysicalGpu gpu(int index, String model, String cc, List<String> migProfiles) {
    return new PhysicalGpu(
        TestDevices.uuid(index),
        String.format(Locale.ROOT, "0000:%02x:00.0", 0x18 + index),
        index,
        Optional.of(model),
        0x030200,
        OptionalLong.of(model.equals(H100) ? 85_520_809_984L : 85_899_345_920L),
        Optional.of(cc),
        Optional.of(!migProfiles.isEmpty()),
        migProfiles);
  }

  static NodeInfo node(List<PhysicalGpu> gpus) {
    return new NodeInfo(Optional.of("550.54.15"), Optional.of("12.4"))
        .withHardware(Optional.of("PowerEdge XE9680"), gpus);
  }

  static LabelInputs inputs(List<Device> devices, NodeInfo node, MigStrategy strategy) {
    return new LabelInputs(
        new Inventory(devices, node, Topology.EMPTY), strategy, r -> SharingPolicy.NONE);
  }

  /**
   * Eight H100s under {@code mixed}: GPU 0 with seven 1g.10gb, GPU 1 with two 3g.40gb, the rest
   * whole.
   */
  static LabelInputs mixedMigNode() {
    List<PhysicalGpu> gpus = new ArrayList<>();
    List<Device> devices = new ArrayList<>();
    gpus.add(
        gpu(
            0,
            H100,
            "9.0",
            List.of("1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb")));
    for (int gi : List.of(7, 8, 9, 11, 12, 13, 14)) {
      devices.add(TestDevices.mig(0, gi, "1g.10gb"));
    }
    gpus.add(gpu(1, H100, "9.0", List.of("3g.40gb", "3g.40gb")));
    devices.add(TestDevices.mig(1, 1, "3g.40gb"));
    devices.add(TestDevices.mig(1, 2, "3g.40gb"));
    for (int i = 2; i < 8; i++) {
      gpus.add(gpu(i, H100, "9.0", List.of()));
      devices.add(TestDevices.nvidia(i, i / 4));
    }
    return inputs(devices, node(gpus), MigStrategy.MIXED);
  }

  /** An AMD GPU bound to amdgpu with what sysfs says of it. */
  static Device amd(int card, String productName, long vramBytes) {
    Device plain = TestDevices.amd(card, 0);
    return new Device(
        plain.id(),
        plain.resource(),
        plain.vendorId(),
        plain.deviceId(),
        productName,
        plain.pciAddress(),
        plain.numaNode(),
        plain.driver(),
        plain.deviceNodes(),
        plain.problems(),
        Optional.empty(),
        Optional.of(
            new AmdDetails(
                Optional.of(productName),
                OptionalLong.of(vramBytes),
                OptionalInt.of(416),
                OptionalInt.of(4),
                Optional.of("6.8.5"),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                false,
                false)));
  }
}
