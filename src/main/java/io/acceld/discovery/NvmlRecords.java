package io.acceld.discovery;

import io.acceld.inventory.PciAddresses;
import io.acceld.nvml.NvmlGpu;
import io.acceld.util.ClientText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * NVML's GPU records by PCI address, with the records that contradict each other set aside: two
 * GPUs at one PCI bus ID (which record is that device's?) or one UUID on two GPUs (an ID the
 * kubelet cannot tell apart). Only the devices at those addresses lose their NVML data and become
 * Unhealthy with the reason; every other GPU, and every other vendor's device, is unaffected.
 *
 * @param byAddress the one NVML record of each address whose record is consistent
 * @param conflicts why each conflicting address's records were set aside, by address
 */
record NvmlRecords(Map<String, NvmlGpu> byAddress, Map<String, String> conflicts) {
  static final NvmlRecords NONE = new NvmlRecords(Map.of(), Map.of());

  NvmlRecords {
    byAddress = Map.copyOf(byAddress);
    conflicts = Map.copyOf(conflicts);
  }

  static NvmlRecords index(List<NvmlGpu> gpus) {
    Map<String, List<NvmlGpu>> atAddress = new LinkedHashMap<>();
    for (NvmlGpu g : gpus) {
      PciAddresses.normalise(g.pciAddress())
          .ifPresent(a -> atAddress.computeIfAbsent(a, k -> new ArrayList<>()).add(g));
    }
    Map<String, String> conflicts = new LinkedHashMap<>();
    atAddress.forEach(
        (address, records) -> {
          if (records.size() > 1) {
            conflicts.put(
                address,
                "NVML reports "
                    + records.size()
                    + " GPUs at PCI bus ID "
                    + address
                    + " (UUIDs "
                    + uuids(records)
                    + "); its NVML data is ignored");
          }
        });
    Map<String, List<String>> addressesOfUuid = new LinkedHashMap<>();
    atAddress.forEach(
        (address, records) -> {
          for (NvmlGpu g : records) {
            if (g.uuid() != null && !g.uuid().isBlank()) {
              List<String> at = addressesOfUuid.computeIfAbsent(g.uuid(), k -> new ArrayList<>());
              if (!at.contains(address)) {
                at.add(address);
              }
            }
          }
        });
    addressesOfUuid.forEach(
        (uuid, addresses) -> {
          if (addresses.size() > 1) {
            for (String address : addresses) {
              conflicts.putIfAbsent(
                  address,
                  "NVML reports UUID "
                      + ClientText.quote(uuid)
                      + " for the GPUs at "
                      + String.join(" and ", addresses)
                      + "; known by PCI address, its NVML data is ignored");
            }
          }
        });
    Map<String, NvmlGpu> byAddress = new LinkedHashMap<>();
    atAddress.forEach(
        (address, records) -> {
          if (!conflicts.containsKey(address)) {
            byAddress.put(address, records.get(0));
          }
        });
    return new NvmlRecords(byAddress, conflicts);
  }

  private static String uuids(List<NvmlGpu> records) {
    return records.stream().map(g -> ClientText.quote(g.uuid())).collect(Collectors.joining(", "));
  }
}
