package io.acceld.mesos.scheduler;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.proto.mesos.v1.Attribute;
import io.acceld.proto.mesos.v1.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The node's attributes in every offer, for schedulers' constraints (Marathon, Spark, v1 offer
 * constraints all match them exactly): the GPU model, driver and CUDA versions, and the NUMA nodes
 * that have GPUs. TEXT values keep to Mesos's flag alphabet {@code [A-Za-z0-9_/.-]}, so the same
 * constraint works against a real Mesos agent configured by flag.
 */
final class NodeAttributes {
  private NodeAttributes() {}

  static List<Attribute> of(Inventory inventory) {
    List<Device> gpus =
        inventory.devices().stream()
            .filter(d -> DeviceResources.nameOf(d).equals(DeviceResources.GPUS))
            .toList();
    List<Attribute> out = new ArrayList<>();
    TreeSet<String> models = new TreeSet<>();
    gpus.forEach(d -> models.add(textValue(d.model())));
    if (!models.isEmpty()) {
      out.add(text("gpu_model", String.join("/", models)));
    }
    inventory
        .node()
        .nvidiaDriverVersion()
        .ifPresent(v -> out.add(text("gpu_driver", textValue(v))));
    inventory.node().cudaVersion().ifPresent(v -> out.add(text("cuda_version", textValue(v))));
    TreeSet<String> numa = new TreeSet<>();
    gpus.stream()
        .filter(d -> d.numaNode() >= 0)
        .forEach(d -> numa.add(String.valueOf(d.numaNode())));
    if (!numa.isEmpty()) {
      out.add(
          Attribute.newBuilder()
              .setName("gpu_numa_nodes")
              .setType(Value.Type.SET)
              .setSet(Value.Set.newBuilder().addAllItem(numa))
              .build());
    }
    Optional<Device> any = gpus.stream().filter(d -> d.nvidia().isPresent()).findFirst();
    any.ifPresent(
        d ->
            out.add(
                Attribute.newBuilder()
                    .setName("gpu_mem_mb")
                    .setType(Value.Type.SCALAR)
                    .setScalar(
                        Value.Scalar.newBuilder()
                            .setValue(d.nvidia().get().memoryBytes() / (1024 * 1024)))
                    .build()));
    return out;
  }

  /** {@code NVIDIA H100 80GB HBM3} → {@code NVIDIA_H100_80GB_HBM3}. */
  static String textValue(String s) {
    return s.trim().replaceAll("[^A-Za-z0-9_/.-]+", "_");
  }

  private static Attribute text(String name, String value) {
    return Attribute.newBuilder()
        .setName(name)
        .setType(Value.Type.TEXT)
        .setText(Value.Text.newBuilder().setValue(value))
        .build();
  }
}
