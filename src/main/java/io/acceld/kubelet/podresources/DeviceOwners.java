package io.acceld.kubelet.podresources;

import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Holder;
import io.acceld.proto.podresources.v1.ContainerDevices;
import io.acceld.proto.podresources.v1.ContainerResources;
import io.acceld.proto.podresources.v1.ListPodResourcesResponse;
import io.acceld.proto.podresources.v1.PodResources;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Builds "which container uses which of our device slots" from one {@code List} answer. */
final class DeviceOwners {
  private static final Comparator<PodResources> POD_ORDER =
      Comparator.comparing(PodResources::getNamespace).thenComparing(PodResources::getName);

  private DeviceOwners() {}

  /**
   * Each slot (a device, or a replica {@code <id>::<k>} of a shared one) of the resources we serve,
   * and the container the kubelet assigned it to. The kubelet assigns a device ID to one container
   * only; should two list it, the first by namespace, pod and container order wins, so the answer
   * does not flip between polls when the kubelet lists pods in another order.
   *
   * @param ours whether a resource name is one this agent advertises; other plugins' devices are
   *     not ours to lease
   */
  static Map<ReplicaId, Holder.KubeletPod> index(
      ListPodResourcesResponse response, Predicate<String> ours) {
    Map<ReplicaId, Holder.KubeletPod> owners = new LinkedHashMap<>();
    List<PodResources> pods = response.getPodResourcesList().stream().sorted(POD_ORDER).toList();
    for (PodResources pod : pods) {
      List<ContainerResources> containers =
          pod.getContainersList().stream()
              .sorted(Comparator.comparing(ContainerResources::getName))
              .toList();
      for (ContainerResources container : containers) {
        Holder.KubeletPod holder =
            new Holder.KubeletPod(pod.getNamespace(), pod.getName(), container.getName());
        for (ContainerDevices devices : container.getDevicesList()) {
          if (!ours.test(devices.getResourceName())) {
            continue;
          }
          for (String id : devices.getDeviceIdsList()) {
            owners.putIfAbsent(ReplicaId.parse(id), holder);
          }
        }
      }
    }
    return owners;
  }
}
