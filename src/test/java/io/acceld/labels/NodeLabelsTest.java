package io.acceld.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.MigStrategy;
import io.acceld.inventory.Device;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.PhysicalGpu;
import io.acceld.testing.TestDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The label function's choices where GFD's output depends on more than one GPU. */
class NodeLabelsTest {
  @Test
  void twoModelsWithAsManyGpusGiveTheNameFirstInAlphabeticalOrder() {
    List<PhysicalGpu> gpus = new ArrayList<>();
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      gpus.add(Nodes.gpu(i, i < 4 ? Nodes.H100 : Nodes.A100, i < 4 ? "9.0" : "8.0", List.of()));
      devices.add(TestDevices.nvidia(i, 0));
    }
    Map<String, String> labels =
        NodeLabels.of(Nodes.inputs(devices, Nodes.node(gpus), MigStrategy.NONE)).labels();

    assertThat(labels)
        .containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB")
        .containsEntry("nvidia.com/gpu.count", "4")
        .containsEntry("nvidia.com/gpu.memory", "81920")
        .containsEntry("nvidia.com/gpu.family", "ampere")
        .containsEntry("nvidia.com/gpu.compute.major", "8")
        .containsEntry("acceld.io/nvidia.com_gpu.count", "8");
  }

  @Test
  void wholeGpusWinOverMoreMigEnabledOnesAsInGfd() {
    List<PhysicalGpu> gpus = new ArrayList<>();
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      gpus.add(Nodes.gpu(i, Nodes.H100, "9.0", List.of("7g.80gb")));
      devices.add(TestDevices.mig(i, 0, "7g.80gb"));
    }
    for (int i = 6; i < 8; i++) {
      gpus.add(Nodes.gpu(i, Nodes.A100, "8.0", List.of()));
      devices.add(TestDevices.nvidia(i, 1));
    }
    Map<String, String> labels =
        NodeLabels.of(Nodes.inputs(devices, Nodes.node(gpus), MigStrategy.MIXED)).labels();

    assertThat(labels)
        .containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB")
        .containsEntry("nvidia.com/gpu.count", "2")
        .containsEntry("nvidia.com/gpu.replicas", "1")
        .containsEntry("nvidia.com/mig-7g.80gb.product", "NVIDIA-H100-80GB-HBM3-MIG-7g.80gb")
        .containsEntry("nvidia.com/mig-7g.80gb.count", "6");
  }

  @Test
  void migEnabledGpusUnderNoneHaveNoReplicasAsGfdLabelsThem() {
    Map<String, String> labels =
        NodeLabels.of(
                Nodes.inputs(
                    List.of(TestDevices.nvidia(0, 0)),
                    Nodes.node(List.of(Nodes.gpu(0, Nodes.H100, "9.0", List.of("7g.80gb")))),
                    MigStrategy.NONE))
            .labels();
    assertThat(labels)
        .containsEntry("nvidia.com/gpu.count", "1")
        .containsEntry("nvidia.com/gpu.replicas", "0")
        .containsEntry("nvidia.com/gpu.sharing-strategy", "none")
        .doesNotContainKey("nvidia.com/mig.strategy");
  }

  @Test
  void gpusNvmlDoesNotKnowGetOnlyWhatIsKnownOfThem() {
    PhysicalGpu known =
        new PhysicalGpu(
            "0000:18:00.0",
            "0000:18:00.0",
            -1,
            Optional.of(Nodes.H100),
            0x030000,
            OptionalLong.empty(),
            Optional.empty(),
            Optional.empty(),
            List.of());
    NodeInfo node = NodeInfo.EMPTY.withHardware(Optional.empty(), List.of(known));
    LabelSet labels =
        NodeLabels.of(
            Nodes.inputs(List.of(TestDevices.nvidiaWithoutNvml(0)), node, MigStrategy.NONE));

    assertThat(labels.labels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "acceld.io/accelerator", "true",
                "acceld.io/nvidia.com_gpu.count", "1",
                "nvidia.com/gpu.present", "true",
                "nvidia.com/gpu.machine", "unknown",
                "nvidia.com/mps.capable", "false",
                "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3",
                "nvidia.com/gpu.count", "1",
                "nvidia.com/gpu.replicas", "1",
                "nvidia.com/gpu.sharing-strategy", "none",
                "nvidia.com/gpu.mode", "graphics"));
  }

  @Test
  void aDriverVersionWithoutRevisionHasAnEmptyRevision() {
    NodeInfo node =
        new NodeInfo(Optional.of("535.104"), Optional.of("12.2"))
            .withHardware(Optional.empty(), List.of(Nodes.gpu(0, Nodes.H100, "9.0", List.of())));
    Map<String, String> labels =
        NodeLabels.of(Nodes.inputs(List.of(TestDevices.nvidia(0, 0)), node, MigStrategy.NONE))
            .labels();
    assertThat(labels)
        .containsEntry("nvidia.com/cuda.driver.major", "535")
        .containsEntry("nvidia.com/cuda.driver.rev", "")
        .containsEntry("nvidia.com/cuda.driver-version.full", "535.104")
        .containsEntry("nvidia.com/cuda.runtime-version.full", "12.2");
  }

  @Test
  void aLabelNfdWouldRefuseIsLeftOutAndReportedAndTheRestIsKept() {
    String odd = "AMD Radeon Pro W7900/Dual Slot";
    LabelSet labels =
        NodeLabels.of(
            Nodes.inputs(
                List.of(Nodes.amd(1, odd, 48L << 30), Nodes.amd(2, odd, 48L << 30)),
                NodeInfo.EMPTY,
                MigStrategy.NONE));

    assertThat(labels.rejected())
        .extracting(LabelSet.Rejected::key)
        .containsExactlyInAnyOrder(
            "amd.com/gpu.product-name",
            "beta.amd.com/gpu.product-name",
            "beta.amd.com/gpu.product-name.AMD_Radeon_Pro_W7900/Dual_Slot");
    assertThat(labels.rejected()).allMatch(r -> !r.reason().isBlank());
    assertThat(labels.labels())
        .doesNotContainKeys("amd.com/gpu.product-name")
        .containsEntry("amd.com/gpu.vram", "48G")
        .containsEntry("amd.com/gpu.cu-count", "104")
        .containsEntry("amd.com/gpu.device-id", "740f")
        .containsEntry("amd.com/gpu.driver-version", "6.8.5");
  }

  @Test
  void amdGpusOfTwoKindsAreCountedPerValue() {
    LabelSet labels =
        NodeLabels.of(
            Nodes.inputs(
                List.of(
                    Nodes.amd(1, "AMD Instinct MI210", 64L << 30),
                    Nodes.amd(2, "AMD Instinct MI210", 64L << 30),
                    Nodes.amd(3, "AMD Instinct MI250X (MCM)", 64L << 30)),
                NodeInfo.EMPTY,
                MigStrategy.NONE));
    assertThat(labels.labels())
        .containsEntry("amd.com/gpu.product-name.AMD_Instinct_MI210", "2")
        .containsEntry("amd.com/gpu.product-name.AMD_Instinct_MI250X_MCM", "1")
        .containsEntry("beta.amd.com/gpu.product-name.AMD_Instinct_MI210", "2")
        .doesNotContainKeys("amd.com/gpu.product-name", "beta.amd.com/gpu.product-name")
        .containsEntry("amd.com/gpu.vram", "64G");
  }

  @Test
  void aNodeWithoutAcceleratorsHasNoLabels() {
    assertThat(NodeLabels.of(Nodes.inputs(List.of(), NodeInfo.EMPTY, MigStrategy.NONE)).labels())
        .isEmpty();
  }
}
