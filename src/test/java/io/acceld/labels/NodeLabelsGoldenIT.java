package io.acceld.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.MigLayout;
import io.acceld.config.MigStrategy;
import io.acceld.config.SharingPolicy;
import io.acceld.discovery.DeviceClassifier;
import io.acceld.discovery.InventoryScanner;
import io.acceld.discovery.NvidiaSource;
import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlProbe;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.FixtureVariants;
import io.acceld.simulate.Fixtures;
import io.acceld.simulate.NvmlScenario;
import io.acceld.testing.NvmlDouble;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The label set of simulated nodes, through real discovery (the fixture's sysfs, and the NVML
 * double for NVIDIA nodes), compared key by key with what GPU Feature Discovery and AMD's node
 * labeller write for such a node: GFD's documented values (product {@code NVIDIA-H100-80GB-HBM3},
 * memory {@code 81559}, family {@code hopper}, ...) and the labeller's 8 × MI300X example ({@code
 * amd.com/gpu.device-id=74a1}, {@code amd.com/gpu.vram=192G}, {@code amd.com/gpu.cu-count=304}).
 */
class NodeLabelsGoldenIT {
  @TempDir Path root;
  private Nvml nvml;

  @AfterEach
  void close() {
    if (nvml != null) {
      nvml.close();
    }
  }

  /** What every node of the 8-GPU H100 fixture has whatever its MIG layout: GFD's node labels. */
  private static final String H100_NODE =
      """
      nvidia.com/gpu.present=true
      nvidia.com/gpu.machine=PowerEdge-XE9680
      nvidia.com/cuda.driver.major=550
      nvidia.com/cuda.driver.minor=54
      nvidia.com/cuda.driver.rev=15
      nvidia.com/cuda.driver-version.major=550
      nvidia.com/cuda.driver-version.minor=54
      nvidia.com/cuda.driver-version.revision=15
      nvidia.com/cuda.driver-version.full=550.54.15
      nvidia.com/cuda.runtime.major=12
      nvidia.com/cuda.runtime.minor=4
      nvidia.com/cuda.runtime-version.major=12
      nvidia.com/cuda.runtime-version.minor=4
      nvidia.com/cuda.runtime-version.full=12.4
      nvidia.com/mig.capable=true
      nvidia.com/mps.capable=false
      nvidia.com/gpu.family=hopper
      nvidia.com/gpu.compute.major=9
      nvidia.com/gpu.compute.minor=0
      nvidia.com/gpu.mode=compute
      acceld.io/accelerator=true
      """;

  @Test
  void wholeH100sGetGfdsLabels() {
    assertLabels(
        scan(Fixtures.eightGpuNode(root.resolve("node"))),
        MigStrategy.NONE,
        H100_NODE
            + """
            nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3
            nvidia.com/gpu.count=8
            nvidia.com/gpu.replicas=1
            nvidia.com/gpu.sharing-strategy=none
            nvidia.com/gpu.memory=81559
            acceld.io/nvidia.com_gpu.count=8
            """);
  }

  @Test
  void timeSlicingMarksTheProductSharedAndCountsEveryReplica() {
    Inventory inventory = scan(Fixtures.eightGpuNode(root.resolve("node")));
    String expected =
        H100_NODE
            + """
            nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3-SHARED
            nvidia.com/gpu.count=8
            nvidia.com/gpu.replicas=4
            nvidia.com/gpu.sharing-strategy=time-slicing
            nvidia.com/gpu.memory=81559
            acceld.io/nvidia.com_gpu.count=32
            """;
    assertLabels(inventory, MigStrategy.NONE, sharing("nvidia.com/gpu", 4, false), expected);

    // Renamed to nvidia.com/gpu.shared, GFD leaves the product as it is.
    assertLabels(
        inventory,
        MigStrategy.NONE,
        sharing("nvidia.com/gpu", 4, true),
        expected
            .replace("HBM3-SHARED", "HBM3")
            .replace("acceld.io/nvidia.com_gpu.count", "acceld.io/nvidia.com_gpu.shared.count"));
  }

  @Test
  void singleWithEveryGpuInOneProfileLabelsTheMigDevicesAsTheGpus() {
    String all =
        "0=1g.10gb*7;1=1g.10gb*7;2=1g.10gb*7;3=1g.10gb*7;4=1g.10gb*7;5=1g.10gb*7;"
            + "6=1g.10gb*7;7=1g.10gb*7";
    assertLabels(
        scanMig(all, MigStrategy.SINGLE),
        MigStrategy.SINGLE,
        H100_NODE
            + """
            nvidia.com/mig.strategy=single
            nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3-MIG-1g.10gb
            nvidia.com/gpu.count=56
            nvidia.com/gpu.replicas=1
            nvidia.com/gpu.sharing-strategy=none
            nvidia.com/gpu.memory=9856
            nvidia.com/gpu.multiprocessors=16
            nvidia.com/gpu.slices.gi=1
            nvidia.com/gpu.slices.ci=1
            nvidia.com/gpu.engines.copy=1
            nvidia.com/gpu.engines.decoder=1
            nvidia.com/gpu.engines.encoder=0
            nvidia.com/gpu.engines.jpeg=0
            nvidia.com/gpu.engines.ofa=0
            acceld.io/nvidia.com_gpu.count=56
            """);
  }

  /** GFD's fallback for each rule of single a node can break; acceld advertises no GPU then. */
  private static final String INVALID_SINGLE =
      H100_NODE
          + """
          nvidia.com/mig.strategy=single
          nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3-MIG-INVALID
          nvidia.com/gpu.count=0
          nvidia.com/gpu.replicas=0
          nvidia.com/gpu.sharing-strategy=
          nvidia.com/gpu.memory=0
          acceld.io/nvidia.com_gpu.count=0
          """;

  @Test
  void singleWithAMigEnabledGpuWithoutMigDevicesIsInvalid() {
    assertLabels(
        scanMig(
            "0=;1=1g.10gb*7;2=1g.10gb*7;3=1g.10gb*7;4=1g.10gb*7;5=1g.10gb*7;6=1g.10gb*7;"
                + "7=1g.10gb*7",
            MigStrategy.SINGLE),
        MigStrategy.SINGLE,
        INVALID_SINGLE);
  }

  @Test
  void singleWithWholeGpusBesideMigEnabledOnesIsInvalid() {
    assertLabels(scanMig("0=1g.10gb*7", MigStrategy.SINGLE), MigStrategy.SINGLE, INVALID_SINGLE);
  }

  @Test
  void singleWithTwoProfilesIsInvalid() {
    assertLabels(
        scanMig(
            "0=1g.10gb*7;1=1g.10gb*7;2=1g.10gb*7;3=1g.10gb*7;4=1g.10gb*7;5=1g.10gb*7;"
                + "6=1g.10gb*7;7=3g.40gb*2",
            MigStrategy.SINGLE),
        MigStrategy.SINGLE,
        INVALID_SINGLE);
  }

  @Test
  void mixedLabelsEachProfileAsItsResourceBesideTheWholeGpus() {
    assertLabels(
        scanMig("0=1g.10gb*7;1=3g.40gb,2g.20gb*2", MigStrategy.MIXED),
        MigStrategy.MIXED,
        H100_NODE
            + """
            nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3
            nvidia.com/gpu.count=8
            nvidia.com/gpu.replicas=1
            nvidia.com/gpu.sharing-strategy=none
            nvidia.com/gpu.memory=81559
            nvidia.com/mig.strategy=mixed
            nvidia.com/mig-1g.10gb.product=NVIDIA-H100-80GB-HBM3-MIG-1g.10gb
            nvidia.com/mig-1g.10gb.count=7
            nvidia.com/mig-1g.10gb.replicas=1
            nvidia.com/mig-1g.10gb.sharing-strategy=none
            nvidia.com/mig-1g.10gb.memory=9856
            nvidia.com/mig-1g.10gb.multiprocessors=16
            nvidia.com/mig-1g.10gb.slices.gi=1
            nvidia.com/mig-1g.10gb.slices.ci=1
            nvidia.com/mig-1g.10gb.engines.copy=1
            nvidia.com/mig-1g.10gb.engines.decoder=1
            nvidia.com/mig-1g.10gb.engines.encoder=0
            nvidia.com/mig-1g.10gb.engines.jpeg=0
            nvidia.com/mig-1g.10gb.engines.ofa=0
            nvidia.com/mig-3g.40gb.product=NVIDIA-H100-80GB-HBM3-MIG-3g.40gb
            nvidia.com/mig-3g.40gb.count=1
            nvidia.com/mig-3g.40gb.replicas=1
            nvidia.com/mig-3g.40gb.sharing-strategy=none
            nvidia.com/mig-3g.40gb.memory=40192
            nvidia.com/mig-3g.40gb.multiprocessors=60
            nvidia.com/mig-3g.40gb.slices.gi=3
            nvidia.com/mig-3g.40gb.slices.ci=3
            nvidia.com/mig-3g.40gb.engines.copy=3
            nvidia.com/mig-3g.40gb.engines.decoder=3
            nvidia.com/mig-3g.40gb.engines.encoder=0
            nvidia.com/mig-3g.40gb.engines.jpeg=0
            nvidia.com/mig-3g.40gb.engines.ofa=0
            nvidia.com/mig-2g.20gb.product=NVIDIA-H100-80GB-HBM3-MIG-2g.20gb
            nvidia.com/mig-2g.20gb.count=2
            nvidia.com/mig-2g.20gb.replicas=1
            nvidia.com/mig-2g.20gb.sharing-strategy=none
            nvidia.com/mig-2g.20gb.memory=19968
            nvidia.com/mig-2g.20gb.multiprocessors=32
            nvidia.com/mig-2g.20gb.slices.gi=2
            nvidia.com/mig-2g.20gb.slices.ci=2
            nvidia.com/mig-2g.20gb.engines.copy=2
            nvidia.com/mig-2g.20gb.engines.decoder=2
            nvidia.com/mig-2g.20gb.engines.encoder=0
            nvidia.com/mig-2g.20gb.engines.jpeg=0
            nvidia.com/mig-2g.20gb.engines.ofa=0
            acceld.io/nvidia.com_gpu.count=6
            acceld.io/nvidia.com_mig-1g.10gb.count=7
            acceld.io/nvidia.com_mig-2g.20gb.count=2
            acceld.io/nvidia.com_mig-3g.40gb.count=1
            """);
  }

  @Test
  void aMixedProfileWithMediaExtensionsIsNamedWithADotAsItsResourceIs() {
    Map<String, String> labels =
        NodeLabels.of(
                new LabelInputs(
                    scanMig("0=1g.10gb+me,1g.10gb*2", MigStrategy.MIXED),
                    MigStrategy.MIXED,
                    r -> SharingPolicy.NONE))
            .labels();
    assertThat(labels)
        .containsEntry("nvidia.com/mig-1g.10gb.me.product", "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb.me")
        .containsEntry("nvidia.com/mig-1g.10gb.me.count", "1")
        .containsEntry("nvidia.com/mig-1g.10gb.me.engines.jpeg", "1")
        .containsEntry("nvidia.com/mig-1g.10gb.me.engines.ofa", "1")
        .containsEntry("nvidia.com/mig-1g.10gb.count", "2")
        .containsEntry("acceld.io/nvidia.com_mig-1g.10gb.me.count", "1");
  }

  @Test
  void aNodeWithTwoGpuModelsGetsTheLabelsOfTheModelWithMoreGpus() {
    FixtureNode node = Fixtures.eightGpuNode(root.resolve("node"));
    // GPUs 6 and 7 are A100s: NVML names them so (sysfs does not name NVIDIA GPUs).
    NvmlScenario scenario =
        NvmlScenario.empty().driver(Fixtures.NVIDIA_DRIVER).cuda(Fixtures.CUDA_DRIVER);
    List<NvmlScenario.Gpu> gpus = node.nvmlScenario().gpus();
    for (int i = 0; i < gpus.size(); i++) {
      scenario =
          scenario.gpu(
              i < 6
                  ? gpus.get(i)
                  : gpus.get(i)
                      .name("NVIDIA A100-SXM4-80GB")
                      .memoryBytes(85_899_345_920L)
                      .computeCapability("8.0"));
    }
    assertLabels(
        scan(node, scenario),
        MigStrategy.NONE,
        H100_NODE
            + """
            nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3
            nvidia.com/gpu.count=6
            nvidia.com/gpu.replicas=1
            nvidia.com/gpu.sharing-strategy=none
            nvidia.com/gpu.memory=81559
            acceld.io/nvidia.com_gpu.count=8
            """);
  }

  @Test
  void eightMi300xGetTheNodeLabellersKeys() {
    FixtureNode node = FixtureVariants.mi300xNode(root.resolve("node"), 8);
    assertLabels(
        scanWithoutNvml(node),
        MigStrategy.NONE,
        """
        acceld.io/accelerator=true
        acceld.io/amd.com_gpu.count=8
        amd.com/gpu.device-id=74a1
        beta.amd.com/gpu.device-id=74a1
        beta.amd.com/gpu.device-id.74a1=8
        amd.com/gpu.product-name=AMD_Instinct_MI300X
        beta.amd.com/gpu.product-name=AMD_Instinct_MI300X
        beta.amd.com/gpu.product-name.AMD_Instinct_MI300X=8
        amd.com/gpu.vram=192G
        beta.amd.com/gpu.vram=192G
        beta.amd.com/gpu.vram.192G=8
        amd.com/gpu.simd-count=1216
        beta.amd.com/gpu.simd-count=1216
        beta.amd.com/gpu.simd-count.1216=8
        amd.com/gpu.cu-count=304
        beta.amd.com/gpu.cu-count=304
        beta.amd.com/gpu.cu-count.304=8
        amd.com/gpu.driver-version=6.8.5
        amd.com/gpu.driver-src-version=2B1A9F3C0E4D5A6B7C8D9E0
        amd.com/gpu.compute-memory-partition=spx_nps1
        amd.com/gpu.compute-partitioning-supported=true
        amd.com/gpu.memory-partitioning-supported=true
        """);
  }

  @Test
  void amdGpusWithoutKfdOrPartitionsGetOnlyWhatSysfsSays() {
    assertLabels(
        scanWithoutNvml(FixtureVariants.mixedNode(root.resolve("node"))),
        MigStrategy.NONE,
        """
        acceld.io/accelerator=true
        acceld.io/amd.com_gpu.count=2
        amd.com/gpu.device-id=740f
        beta.amd.com/gpu.device-id=740f
        beta.amd.com/gpu.device-id.740f=2
        amd.com/gpu.product-name=AMD_Instinct_MI210
        beta.amd.com/gpu.product-name=AMD_Instinct_MI210
        beta.amd.com/gpu.product-name.AMD_Instinct_MI210=2
        amd.com/gpu.compute-partitioning-supported=false
        amd.com/gpu.memory-partitioning-supported=false
        """);
  }

  @Test
  void gaudisGetAcceldsOwnVendorLabels() {
    assertLabels(
        scanWithoutNvml(FixtureVariants.gaudiNode(root.resolve("node"))),
        MigStrategy.NONE,
        """
        acceld.io/accelerator=true
        acceld.io/habana.ai_gaudi.count=2
        acceld.io/habana.present=true
        acceld.io/habana.count=2
        acceld.io/habana.device-id=1020
        """);
  }

  /** The fixture with {@code layout}'s GPUs in MIG mode, discovered under {@code strategy}. */
  private Inventory scanMig(String layout, MigStrategy strategy) {
    FixtureNode node = Fixtures.node(root.resolve("node"), 8, MigLayout.parse(layout));
    return scan(node, node.nvmlScenario(), strategy);
  }

  private Inventory scan(FixtureNode node) {
    return scan(node, node.nvmlScenario());
  }

  private Inventory scan(FixtureNode node, NvmlScenario scenario) {
    return scan(node, scenario, MigStrategy.NONE);
  }

  private Inventory scan(FixtureNode node, NvmlScenario scenario, MigStrategy strategy) {
    nvml = NvmlDouble.create(root.resolve("nvml"), scenario).open();
    return new InventoryScanner(
            node.tree().sysfsRoot(),
            node.tree().devRoot(),
            node.tree().procRoot(),
            new DeviceClassifier(List.of()),
            NvidiaSource.fresh(new NvmlProbe(nvml)),
            strategy)
        .scan();
  }

  private static Inventory scanWithoutNvml(FixtureNode node) {
    return new InventoryScanner(
            node.tree().sysfsRoot(),
            node.tree().devRoot(),
            node.tree().procRoot(),
            new DeviceClassifier(List.of()),
            NvidiaSource.NONE)
        .scan();
  }

  private static Function<String, SharingPolicy> sharing(
      String resource, int replicas, boolean rename) {
    return r -> r.equals(resource) ? new SharingPolicy(replicas, rename) : SharingPolicy.NONE;
  }

  private static void assertLabels(Inventory inventory, MigStrategy strategy, String expected) {
    assertLabels(inventory, strategy, r -> SharingPolicy.NONE, expected);
  }

  private static void assertLabels(
      Inventory inventory,
      MigStrategy strategy,
      Function<String, SharingPolicy> sharing,
      String expected) {
    LabelSet labels = NodeLabels.of(new LabelInputs(inventory, strategy, sharing));
    assertThat(labels.rejected()).isEmpty();
    assertThat(labels.labels()).containsExactlyInAnyOrderEntriesOf(parse(expected));
  }

  private static Map<String, String> parse(String lines) {
    Map<String, String> labels = new LinkedHashMap<>();
    for (String line : lines.strip().split("\n")) {
      int eq = line.indexOf('=');
      labels.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
    }
    return labels;
  }
}
