package io.acceld.labels;

import io.acceld.config.MigStrategy;
import io.acceld.config.SharingPolicy;
import io.acceld.inventory.NodeInfo;
import io.acceld.inventory.PhysicalGpu;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The labels NVIDIA's GPU Feature Discovery (v0.20) writes, with its keys and values, so that
 * manifests selecting on them keep working when acceld replaces it: machine, driver and CUDA
 * versions, MIG capability, the {@code nvidia.com/gpu.*} labels of the node's GPUs, the MIG
 * strategy's labels ({@link MigLabels}) and the GPU mode. Plus {@code nvidia.com/gpu.present},
 * which the GPU operator (not GFD) writes and which node selectors, our DaemonSet's included, use.
 *
 * <p>Left out, because the agent cannot know them: {@code nvidia.com/gfd.timestamp} (as with GFD's
 * {@code --no-timestamp}: a timestamp would rewrite the file for nothing), {@code vgpu.*}, {@code
 * gpu.clique} and IMEX labels. A value the agent does not know is left out rather than guessed
 * (GPUs NVML did not report have no memory, family or compute labels).
 *
 * <p>A node with several GPU models gets one model's {@code nvidia.com/gpu.*} labels, as from GFD,
 * whose labellers for each model overwrite each other in Go's random map order. Here the order is
 * fixed: whole GPUs overwrite MIG-enabled ones (as in GFD), and within each the model with the most
 * GPUs is written last, so it wins (on a tie, the name first in alphabetical order). {@code
 * nvidia.com/gpu.count} is then that model's count, as GFD's is.
 */
final class NvidiaLabeller implements Labeller {
  static final String GPU = "nvidia.com/gpu";

  @Override
  public Map<String, String> labels(LabelInputs inputs) {
    NodeInfo node = inputs.inventory().node();
    List<PhysicalGpu> gpus = node.nvidiaGpus();
    if (gpus.isEmpty()) {
      return Map.of();
    }
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("nvidia.com/gpu.present", "true");
    // GFD's value when the DMI file cannot be read is "unknown", so it is written as GFD would.
    labels.put("nvidia.com/gpu.machine", LabelRules.sanitise(node.machine().orElse("unknown")));
    versions(node, labels);
    if (gpus.stream().anyMatch(PhysicalGpu::seenByNvml)) {
      boolean capable = gpus.stream().anyMatch(g -> g.seenByNvml() && g.migEnabled().isPresent());
      labels.put("nvidia.com/mig.capable", Boolean.toString(capable));
    }
    // acceld has no MPS sharing: false, as GFD says without an MPS config.
    labels.put("nvidia.com/mps.capable", "false");
    labels.putAll(wholeGpus(gpus, inputs.sharing()));
    if (inputs.migStrategy() != MigStrategy.NONE) {
      labels.put("nvidia.com/mig.strategy", inputs.migStrategy().word());
      labels.putAll(MigLabels.of(inputs));
    }
    labels.put("nvidia.com/gpu.mode", mode(gpus.get(0).pciClass()));
    return labels;
  }

  /**
   * The driver's version as {@code cuda.driver.*} (GFD's deprecated, misnamed keys) and {@code
   * cuda.driver-version.*}; the CUDA version the driver supports as {@code cuda.runtime.*} and
   * {@code cuda.runtime-version.*}. A version NVML did not give, or not of the form {@code
   * X.Y[.Z]}, leaves its labels out.
   */
  private static void versions(NodeInfo node, Map<String, String> labels) {
    node.nvidiaDriverVersion()
        .map(v -> v.split("\\.", -1))
        .filter(parts -> parts.length == 2 || parts.length == 3)
        .ifPresent(
            parts -> {
              String revision = parts.length == 3 ? parts[2] : "";
              labels.put("nvidia.com/cuda.driver.major", parts[0]);
              labels.put("nvidia.com/cuda.driver.minor", parts[1]);
              labels.put("nvidia.com/cuda.driver.rev", revision);
              labels.put("nvidia.com/cuda.driver-version.major", parts[0]);
              labels.put("nvidia.com/cuda.driver-version.minor", parts[1]);
              labels.put("nvidia.com/cuda.driver-version.revision", revision);
              labels.put("nvidia.com/cuda.driver-version.full", String.join(".", parts));
            });
    node.cudaVersion()
        .flatMap(NvidiaLabeller::majorMinor)
        .ifPresent(
            v -> {
              labels.put("nvidia.com/cuda.runtime.major", Integer.toString(v[0]));
              labels.put("nvidia.com/cuda.runtime.minor", Integer.toString(v[1]));
              labels.put("nvidia.com/cuda.runtime-version.major", Integer.toString(v[0]));
              labels.put("nvidia.com/cuda.runtime-version.minor", Integer.toString(v[1]));
              labels.put("nvidia.com/cuda.runtime-version.full", v[0] + "." + v[1]);
            });
  }

  /**
   * GFD's labels of the node's GPUs as boards: one set per model, MIG-enabled models (no sharing:
   * replicas 0) before whole ones, each overwriting the last (see the class comment for the order).
   */
  private static Map<String, String> wholeGpus(
      List<PhysicalGpu> gpus, Function<String, SharingPolicy> sharing) {
    Map<String, List<PhysicalGpu>> migEnabled = new LinkedHashMap<>();
    Map<String, List<PhysicalGpu>> whole = new LinkedHashMap<>();
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (PhysicalGpu g : gpus) {
      String model = g.model().orElse("");
      (g.inMigMode() ? migEnabled : whole).computeIfAbsent(model, m -> new ArrayList<>()).add(g);
      counts.merge(model, 1, Integer::sum);
    }
    Comparator<String> lastWins =
        Comparator.comparingInt((String model) -> counts.get(model))
            .thenComparing(Comparator.<String>reverseOrder());
    Map<String, String> labels = new LinkedHashMap<>();
    for (String model : migEnabled.keySet().stream().sorted(lastWins).toList()) {
      labels.putAll(
          model(new ResourceLabels(GPU, Optional.empty()), migEnabled.get(model), counts));
    }
    for (String model : whole.keySet().stream().sorted(lastWins).toList()) {
      labels.putAll(
          model(
              new ResourceLabels(GPU, Optional.of(sharing.apply(GPU))), whole.get(model), counts));
    }
    return labels;
  }

  /** One model's labels: product, count, replicas, sharing, then memory and architecture. */
  private static Map<String, String> model(
      ResourceLabels resource, List<PhysicalGpu> ofModel, Map<String, Integer> counts) {
    PhysicalGpu gpu = ofModel.get(0);
    String model = gpu.model().orElse("");
    Map<String, String> labels =
        new LinkedHashMap<>(resource.base(counts.get(model), List.of(model)));
    // MiB as GFD computes it from NVML's total; 0 or unknown writes no label.
    gpu.memoryBytes().stream()
        .map(bytes -> bytes >> 20)
        .filter(mib -> mib != 0)
        .forEach(mib -> labels.put(resource.key("memory"), Long.toString(mib)));
    gpu.computeCapability()
        .flatMap(NvidiaLabeller::majorMinor)
        .filter(cc -> cc[0] != 0)
        .ifPresent(
            cc -> {
              labels.put(resource.key("family"), family(cc[0], cc[1]));
              labels.put(resource.key("compute.major"), Integer.toString(cc[0]));
              labels.put(resource.key("compute.minor"), Integer.toString(cc[1]));
            });
    return labels;
  }

  /** GFD's architecture family of a CUDA compute capability. */
  static String family(int major, int minor) {
    return switch (major) {
      case 1 -> "tesla";
      case 2 -> "fermi";
      case 3 -> "kepler";
      case 5 -> "maxwell";
      case 6 -> "pascal";
      case 7 -> minor < 5 ? "volta" : "turing";
      case 8 -> minor < 9 ? "ampere" : "ada-lovelace";
      case 9 -> "hopper";
      case 10, 12 -> "blackwell";
      case 13 -> "rubin";
      default -> "undefined";
    };
  }

  /**
   * GFD's {@code gpu.mode} from the first GPU's PCI class: a 3D controller computes, a VGA
   * controller displays.
   */
  static String mode(int pciClass) {
    return switch (pciClass) {
      case 0x030200 -> "compute";
      case 0x030000 -> "graphics";
      default -> "unknown";
    };
  }

  /** {@code "9.0"} as {@code {9, 0}}; empty if it is not two whole numbers. */
  static Optional<int[]> majorMinor(String version) {
    String[] parts = version.split("\\.", -1);
    if (parts.length != 2) {
      return Optional.empty();
    }
    try {
      return Optional.of(new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])});
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
