package io.acceld.kubelet.podresources;

import io.acceld.inventory.ReplicaId;
import io.acceld.proto.podresources.v1.ContainerDevices;
import io.acceld.proto.podresources.v1.ContainerResources;
import io.acceld.proto.podresources.v1.ListPodResourcesResponse;
import io.acceld.proto.podresources.v1.PodResources;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Builds the device → container map from one {@code List} answer. */
final class DeviceOwners {
  private static final Comparator<PodResources> POD_ORDER =
      Comparator.comparing(PodResources::getNamespace).thenComparing(PodResources::getName);

  private DeviceOwners() {}

  /**
   * Maps each physical device ID to the container using it. A shared GPU ({@code <id>::<k>}
   * replicas) can be in several containers; the first by namespace, pod and container order wins,
   * so the answer does not flip between polls when the kubelet lists pods in another order.
   */
  static Map<String, PodRef> index(ListPodResourcesResponse response) {
    Map<String, PodRef> owners = new HashMap<>();
    List<PodResources> pods = response.getPodResourcesList().stream().sorted(POD_ORDER).toList();
    for (PodResources pod : pods) {
      List<ContainerResources> containers =
          pod.getContainersList().stream()
              .sorted(Comparator.comparing(ContainerResources::getName))
              .toList();
      for (ContainerResources container : containers) {
        PodRef ref = new PodRef(pod.getName(), pod.getNamespace(), container.getName());
        for (ContainerDevices devices : container.getDevicesList()) {
          for (String id : devices.getDeviceIdsList()) {
            owners.putIfAbsent(ReplicaId.physicalOf(id), ref);
          }
        }
      }
    }
    return Map.copyOf(owners);
  }
}
