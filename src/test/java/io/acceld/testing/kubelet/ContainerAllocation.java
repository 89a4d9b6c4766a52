package io.acceld.testing.kubelet;

import io.acceld.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import java.util.List;
import java.util.Optional;

/**
 * Devices the double admitted for one container, as {@link KubeletDouble#admitContainer} chose
 * them.
 *
 * @param resource the resource
 * @param deviceIds the devices sent in the Allocate request
 * @param preferred what GetPreferredAllocation answered ({@code container_responses[0]}), if the
 *     plugin offers it
 * @param response {@code container_responses[0]} of the Allocate response: what the kubelet
 *     checkpoints and uses
 */
public record ContainerAllocation(
    String resource,
    List<String> deviceIds,
    Optional<List<String>> preferred,
    ContainerAllocateResponse response) {
  public ContainerAllocation {
    deviceIds = List.copyOf(deviceIds);
    preferred = preferred.map(List::copyOf);
  }
}
