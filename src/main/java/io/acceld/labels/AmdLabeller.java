package io.acceld.labels;

import io.acceld.inventory.AmdDetails;
import io.acceld.inventory.Device;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The labels AMD's node labeller ({@code k8s-node-labeller} of ROCm's device plugin) writes, for
 * what sysfs gives: device ID, product name, VRAM, SIMD and compute-unit counts, driver versions,
 * and the partition labels. Its GPUs are those bound to amdgpu.
 *
 * <p>A property with one value on every GPU that has it gives {@code amd.com/gpu.<p>=<v>} and
 * {@code beta.amd.com/gpu.<p>=<v>}; with several values, {@code amd.com/gpu.<p>.<v>=<count>}
 * instead; and always {@code beta.amd.com/gpu.<p>.<v>=<count>} per value. So an 8 × MI300X node has
 * {@code amd.com/gpu.device-id=74a1}, {@code beta.amd.com/gpu.device-id.74a1=8}, {@code
 * amd.com/gpu.vram=192G} and {@code amd.com/gpu.cu-count=304}.
 *
 * <p>Left out: {@code gpu.family}, which the labeller reads through libdrm's {@code
 * amdgpu_query_gpu_info} (sysfs does not publish the family), and firmware versions (debugfs and
 * ioctls). The partition keys carry the {@code gpu.} the labeller's code gives every key ({@code
 * amd.com/gpu.compute-memory-partition}), not the shorter form of its commit message.
 */
final class AmdLabeller implements Labeller {
  private static final int VENDOR_AMD = 0x1002;
  private static final String DRIVER = "amdgpu";
  private static final String PREFIX = "amd.com/gpu.";
  private static final String BETA_PREFIX = "beta.amd.com/gpu.";

  @Override
  public Map<String, String> labels(LabelInputs inputs) {
    List<Device> gpus =
        inputs.inventory().devices().stream()
            .filter(d -> d.vendorId() == VENDOR_AMD && d.driver().map(DRIVER::equals).orElse(false))
            .sorted(Comparator.comparing(Device::pciAddress))
            .toList();
    if (gpus.isEmpty()) {
      return Map.of();
    }
    Map<String, String> labels = new LinkedHashMap<>();
    counted(
        labels,
        "device-id",
        gpus,
        d -> Optional.of(String.format(Locale.ROOT, "%04x", d.deviceId())));
    counted(
        labels,
        "product-name",
        gpus,
        d ->
            d.amd()
                .flatMap(AmdDetails::productName)
                .map(AmdLabeller::productName)
                .filter(p -> !p.isEmpty()));
    counted(
        labels,
        "vram",
        gpus,
        d -> d.amd().flatMap(a -> known(a.vramBytes())).map(AmdLabeller::vram));
    counted(labels, "simd-count", gpus, d -> d.amd().flatMap(a -> text(a.simdCount())));
    counted(labels, "cu-count", gpus, d -> d.amd().flatMap(a -> text(a.computeUnits())));
    // The first GPU's module (they share one): amd.com only, as the labeller writes it.
    first(gpus, AmdDetails::driverVersion).ifPresent(v -> labels.put(PREFIX + "driver-version", v));
    first(gpus, AmdDetails::driverSrcVersion)
        .ifPresent(v -> labels.put(PREFIX + "driver-src-version", v));
    partitions(gpus, labels);
    return labels;
  }

  /**
   * The partition labels: the mode ({@code <compute>_<memory>}, lower case) when every GPU that
   * reports one has the same, and whether the first GPU offers compute and memory partitioning.
   */
  private static void partitions(List<Device> gpus, Map<String, String> labels) {
    List<String> modes = new ArrayList<>();
    for (Device d : gpus) {
      d.amd()
          .filter(a -> a.computePartition().isPresent() && a.memoryPartition().isPresent())
          .ifPresent(
              a ->
                  modes.add(
                      (a.computePartition().get() + "_" + a.memoryPartition().get())
                          .toLowerCase(Locale.ROOT)));
    }
    if (!modes.isEmpty() && modes.stream().distinct().count() == 1) {
      labels.put(PREFIX + "compute-memory-partition", modes.get(0));
    }
    Optional<AmdDetails> first = gpus.get(0).amd();
    labels.put(
        PREFIX + "compute-partitioning-supported",
        Boolean.toString(first.map(AmdDetails::computePartitioning).orElse(false)));
    labels.put(
        PREFIX + "memory-partitioning-supported",
        Boolean.toString(first.map(AmdDetails::memoryPartitioning).orElse(false)));
  }

  /** The labeller's "counts per value" labels of one property; GPUs without it are skipped. */
  private static void counted(
      Map<String, String> labels,
      String property,
      List<Device> gpus,
      Function<Device, Optional<String>> value) {
    Map<String, Integer> counts = new TreeMap<>();
    for (Device d : gpus) {
      value.apply(d).ifPresent(v -> counts.merge(v, 1, Integer::sum));
    }
    if (counts.isEmpty()) {
      return;
    }
    if (counts.size() == 1) {
      String only = counts.keySet().iterator().next();
      labels.put(PREFIX + property, only);
      labels.put(BETA_PREFIX + property, only);
    } else {
      counts.forEach((v, c) -> labels.put(PREFIX + property + "." + v, Integer.toString(c)));
    }
    counts.forEach((v, c) -> labels.put(BETA_PREFIX + property + "." + v, Integer.toString(c)));
  }

  private static Optional<String> first(
      List<Device> gpus, Function<AmdDetails, Optional<String>> value) {
    return gpus.stream().map(d -> d.amd().flatMap(value)).flatMap(Optional::stream).findFirst();
  }

  private static Optional<Long> known(OptionalLong value) {
    return value.isPresent() ? Optional.of(value.getAsLong()) : Optional.empty();
  }

  private static Optional<String> text(OptionalInt value) {
    return value.isPresent() ? Optional.of(Integer.toString(value.getAsInt())) : Optional.empty();
  }

  /** As the labeller writes product names: spaces as {@code _}, parentheses removed. */
  static String productName(String raw) {
    return raw.strip().replace(" ", "_").replace("(", "").replace(")", "");
  }

  /** VRAM as the labeller writes it: whole MiB, then GiB rounded half up, as {@code 192G}. */
  static String vram(long bytes) {
    long mib = bytes / (1024 * 1024);
    return Math.round(mib / 1024.0) + "G";
  }
}
