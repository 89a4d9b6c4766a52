package io.acceld.labels;

import io.acceld.config.MigStrategy;
import io.acceld.inventory.Device;
import io.acceld.inventory.MigAttributes;
import io.acceld.inventory.MigDetails;
import io.acceld.inventory.NvidiaDetails;
import io.acceld.inventory.PhysicalGpu;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * GPU Feature Discovery's labels of MIG devices. Under {@code single} the MIG devices are {@code
 * nvidia.com/gpu}, so their labels overwrite the whole GPUs' {@code nvidia.com/gpu.product}, {@code
 * .count}, {@code .replicas}, {@code .sharing-strategy} and {@code .memory} (family and compute
 * capability stay the parents'); under {@code mixed} each profile is its own {@code
 * nvidia.com/mig-<profile>}. Either way the attributes ({@code .memory}, {@code .multiprocessors},
 * {@code .slices.*}, {@code .engines.*}) are those of the first MIG device of the profile, in
 * NVML's order of GPUs and MIG indices, as GFD takes them.
 *
 * <p>A node that breaks the {@code single} rules (a MIG-enabled GPU without MIG devices, whole GPUs
 * beside MIG-enabled ones, or more than one profile) gets GFD's fallback: {@code
 * nvidia.com/gpu.product=<model>-MIG-INVALID} with count, replicas and memory 0 and an empty
 * sharing strategy, so that no pod selecting a real product lands there.
 */
final class MigLabels {
  private MigLabels() {}

  static Map<String, String> of(LabelInputs inputs) {
    List<PhysicalGpu> gpus =
        inputs.inventory().node().nvidiaGpus().stream().filter(PhysicalGpu::seenByNvml).toList();
    List<Device> migDevices = migDevices(inputs.inventory().devices());
    return inputs.migStrategy() == MigStrategy.SINGLE
        ? single(gpus, migDevices, inputs)
        : mixed(gpus, migDevices, inputs);
  }

  private static Map<String, String> single(
      List<PhysicalGpu> gpus, List<Device> migDevices, LabelInputs inputs) {
    List<PhysicalGpu> enabled = gpus.stream().filter(PhysicalGpu::inMigMode).toList();
    if (enabled.isEmpty()) {
      return Map.of(); // no MIG-enabled GPU: single is none
    }
    List<String> profiles =
        enabled.stream().flatMap(g -> g.migProfiles().stream()).map(MigLabels::name).toList();
    boolean emptyGpu = enabled.stream().anyMatch(g -> g.migProfiles().isEmpty());
    boolean wholeGpu = enabled.size() != gpus.size();
    if (emptyGpu || wholeGpu || profiles.stream().distinct().count() != 1) {
      return invalid(enabled.get(0));
    }
    return profile(
        new ResourceLabels(
            NvidiaLabeller.GPU, Optional.of(inputs.sharing().apply(NvidiaLabeller.GPU))),
        profiles.get(0),
        profiles.size(),
        enabled,
        migDevices);
  }

  private static Map<String, String> invalid(PhysicalGpu first) {
    ResourceLabels gpu = new ResourceLabels(NvidiaLabeller.GPU, Optional.empty());
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(
        gpu.key("product"),
        String.join(
            "-",
            List.of(LabelRules.sanitise(first.model().orElse("")), "MIG", "INVALID").stream()
                .filter(p -> !p.isEmpty())
                .toList()));
    labels.put(gpu.key("count"), "0");
    labels.put(gpu.key("replicas"), "0");
    labels.put(gpu.key("sharing-strategy"), "");
    labels.put(gpu.key("memory"), "0");
    return labels;
  }

  private static Map<String, String> mixed(
      List<PhysicalGpu> gpus, List<Device> migDevices, LabelInputs inputs) {
    // Each profile once, in the order its first device comes; an empty MIG-enabled GPU adds none.
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (PhysicalGpu g : gpus) {
      if (g.inMigMode()) {
        g.migProfiles().forEach(p -> counts.merge(name(p), 1, Integer::sum));
      }
    }
    Map<String, String> labels = new LinkedHashMap<>();
    counts.forEach(
        (profile, count) -> {
          String resource = "nvidia.com/mig-" + profile;
          labels.putAll(
              profile(
                  new ResourceLabels(resource, Optional.of(inputs.sharing().apply(resource))),
                  profile,
                  count,
                  gpus,
                  migDevices));
        });
    return labels;
  }

  /** One profile's labels, from its first MIG device and that device's parent. */
  private static Map<String, String> profile(
      ResourceLabels resource,
      String profile,
      int count,
      List<PhysicalGpu> gpus,
      List<Device> migDevices) {
    Optional<PhysicalGpu> parent =
        gpus.stream()
            .filter(g -> g.migProfiles().stream().map(MigLabels::name).anyMatch(profile::equals))
            .findFirst();
    Optional<MigAttributes> attributes =
        parent.flatMap(
            p ->
                migDevices.stream()
                    .map(d -> d.nvidia().flatMap(NvidiaDetails::mig).orElseThrow())
                    .filter(m -> m.parentUuid().equals(p.id()) && name(m.profile()).equals(profile))
                    .findFirst()
                    .flatMap(MigDetails::attributes));
    Map<String, String> labels =
        new LinkedHashMap<>(
            resource.base(
                count, List.of(parent.flatMap(PhysicalGpu::model).orElse(""), "MIG", profile)));
    attributes.ifPresent(
        a -> {
          labels.put(resource.key("memory"), Long.toString(a.memoryMiB()));
          labels.put(resource.key("multiprocessors"), Integer.toString(a.multiprocessors()));
          labels.put(resource.key("slices.gi"), Integer.toString(a.gpuInstanceSlices()));
          labels.put(resource.key("slices.ci"), Integer.toString(a.computeInstanceSlices()));
          labels.put(resource.key("engines.copy"), Integer.toString(a.copyEngines()));
          labels.put(resource.key("engines.decoder"), Integer.toString(a.decoders()));
          labels.put(resource.key("engines.encoder"), Integer.toString(a.encoders()));
          labels.put(resource.key("engines.jpeg"), Integer.toString(a.jpegs()));
          labels.put(resource.key("engines.ofa"), Integer.toString(a.ofas()));
        });
    return labels;
  }

  /** The inventory's MIG devices by parent and MIG index: NVML's order. */
  private static List<Device> migDevices(List<Device> devices) {
    return devices.stream()
        .filter(d -> d.nvidia().flatMap(NvidiaDetails::mig).isPresent())
        .sorted(
            Comparator.comparingInt((Device d) -> d.nvidia().orElseThrow().index())
                .thenComparingInt(d -> d.nvidia().orElseThrow().mig().orElseThrow().migIndex()))
        .toList();
  }

  /**
   * A profile as GFD names MIG devices and their resources: {@code +} is not allowed in a resource
   * name, so {@code 1g.10gb+me} is {@code 1g.10gb.me}.
   */
  static String name(String profile) {
    return profile.replace('+', '.');
  }
}
