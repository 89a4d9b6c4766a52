package io.acceld.labels;

import io.acceld.config.SharingPolicy;
import io.acceld.inventory.Inventory;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * acceld's own labels: {@code acceld.io/accelerator=true} on a node with anything to advertise, and
 * {@code acceld.io/<resource>.count} for each advertised resource, so that the agent's DaemonSet
 * (whose node affinity accepts {@code acceld.io/accelerator}) and operators can select accelerator
 * nodes without NFD's PCI labels. The count is what the kubelet is offered: the devices times the
 * resource's time-slicing replicas, under the name it is advertised as ({@code
 * nvidia.com/gpu.shared} when renamed); 0 for a resource advertised empty. See {@link
 * LabelRules#resourceLabelName} for how a resource name becomes a label name.
 */
final class AcceldLabeller implements Labeller {
  static final String ACCELERATOR = "acceld.io/accelerator";

  @Override
  public Map<String, String> labels(LabelInputs inputs) {
    Inventory inventory = inputs.inventory();
    if (inventory.resources().isEmpty()) {
      return Map.of();
    }
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(ACCELERATOR, "true");
    for (String resource : inventory.resources()) {
      SharingPolicy sharing = inputs.sharing().apply(resource);
      long offered = (long) inventory.devicesOf(resource).size() * sharing.replicas();
      labels.put(
          "acceld.io/" + LabelRules.resourceLabelName(sharing.advertisedName(resource)) + ".count",
          Long.toString(offered));
    }
    return labels;
  }
}
