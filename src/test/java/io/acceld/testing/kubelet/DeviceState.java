package io.acceld.testing.kubelet;

import java.util.List;

/**
 * One device of a resource as the kubelet sees it.
 *
 * @param id the device ID
 * @param health the health string the plugin last sent for it
 * @param healthy whether the kubelet counts it as healthy: the plugin sent exactly "Healthy" and
 *     its stream has not ended since
 * @param numaNodes the NUMA node IDs from its topology (empty when the plugin sent none)
 */
public record DeviceState(String id, String health, boolean healthy, List<Long> numaNodes) {
  public DeviceState {
    numaNodes = List.copyOf(numaNodes);
  }
}
