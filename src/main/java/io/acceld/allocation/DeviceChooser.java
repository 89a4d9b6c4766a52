package io.acceld.allocation;

import io.acceld.inventory.Inventory;
import java.util.List;

/**
 * Chooses which of a resource's available devices a workload should get. Publishers call it with
 * the IDs they deal in: the kubelet with advertised IDs (a device ID, or a replica ID {@code
 * <id>::<k>} when the resource is shared), the Mesos bridge with physical device IDs. The devices'
 * topology comes from {@code inventory}, the snapshot the IDs were taken from.
 *
 * <p>Implementations are stateless as far as callers can tell, and never return an ID outside
 * {@code available}: book-keeping of who holds what is the ledger's, not the chooser's.
 */
@FunctionalInterface
public interface DeviceChooser {
  List<String> choose(
      Inventory inventory, List<String> available, List<String> mustInclude, int size);
}
