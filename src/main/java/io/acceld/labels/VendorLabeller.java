package io.acceld.labels;

import io.acceld.inventory.Device;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Labels for accelerators whose vendor's labeller the agent does not imitate (Intel, Habana, and
 * any vendor an operator's classification rule adds), under acceld's own prefix: {@code
 * acceld.io/<vendor>.present}, {@code .count} and the PCI device IDs, as {@code .device-id=<id>}
 * when all are one model, else {@code .device-id.<id>=<count>}. The vendor is {@code intel} or
 * {@code habana}, else {@code pci-<vendor ID>}.
 */
final class VendorLabeller implements Labeller {
  private static final int NVIDIA = 0x10de;
  private static final int AMD = 0x1002;

  @Override
  public Map<String, String> labels(LabelInputs inputs) {
    Map<Integer, List<Device>> byVendor =
        inputs.inventory().devices().stream()
            .filter(d -> d.vendorId() != NVIDIA && d.vendorId() != AMD)
            .collect(Collectors.groupingBy(Device::vendorId, TreeMap::new, Collectors.toList()));
    Map<String, String> labels = new LinkedHashMap<>();
    byVendor.forEach(
        (vendor, devices) -> {
          String prefix = "acceld.io/" + vendorName(vendor) + ".";
          labels.put(prefix + "present", "true");
          labels.put(prefix + "count", Integer.toString(devices.size()));
          Map<String, Integer> ids = new TreeMap<>();
          devices.forEach(
              d -> ids.merge(String.format(Locale.ROOT, "%04x", d.deviceId()), 1, Integer::sum));
          if (ids.size() == 1) {
            labels.put(prefix + "device-id", ids.keySet().iterator().next());
          } else {
            ids.forEach((id, n) -> labels.put(prefix + "device-id." + id, Integer.toString(n)));
          }
        });
    return labels;
  }

  static String vendorName(int vendor) {
    return switch (vendor) {
      case 0x8086 -> "intel";
      case 0x1da3 -> "habana";
      default -> String.format(Locale.ROOT, "pci-%04x", vendor);
    };
  }
}
