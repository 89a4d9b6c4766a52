package io.acceld.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code devices} table for people: one aligned row per device, rendered from the same rows as
 * the JSON document so the two never disagree. Device nodes are shown relative to the directory
 * they share, which the footer names.
 */
final class DeviceTable {
  private static final List<String> HEADER =
      List.of(
          "RESOURCE", "ID", "MODEL", "PCI", "NUMA", "HEALTH", "HOLDER", "SINCE", "DEVICE NODES");

  private DeviceTable() {}

  static String render(List<Map<String, Object>> devices) {
    if (devices.isEmpty()) {
      return "No accelerators found.\n";
    }
    Path nodeDir = commonDirectory(devices);
    List<List<String>> rows = new ArrayList<>();
    rows.add(HEADER);
    // Whole devices first, then each MIG-mode GPU on a line of its own with its MIG devices below.
    List<Map<String, Object>> whole = new ArrayList<>();
    Map<String, List<Map<String, Object>>> byParent = new TreeMap<>();
    Map<String, String> parentPci = new HashMap<>();
    for (Map<String, Object> d : devices) {
      Object parent = d.get("parentId");
      if (parent == null) {
        whole.add(d);
      } else {
        byParent.computeIfAbsent(text(parent), k -> new ArrayList<>()).add(d);
        parentPci.put(text(parent), text(d.get("pciAddress")));
      }
    }
    whole.forEach(d -> rows.add(row(d, "", nodeDir)));
    byParent.entrySet().stream()
        .sorted(Map.Entry.comparingByKey(Comparator.comparing(parentPci::get)))
        .forEach(
            e -> {
              Map<String, Object> first = e.getValue().get(0);
              String model = text(first.get("model"));
              int mig = model.lastIndexOf(" MIG ");
              rows.add(
                  List.of(
                      "",
                      e.getKey(),
                      (mig > 0 ? model.substring(0, mig) : model) + " (MIG mode)",
                      text(first.get("pciAddress")),
                      text(first.get("numaNode")),
                      "",
                      "",
                      "",
                      ""));
              e.getValue().forEach(d -> rows.add(row(d, "└ ", nodeDir)));
            });
    int[] widths = new int[HEADER.size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        line.append(row.get(i));
        if (i < row.size() - 1) {
          line.append(" ".repeat(widths[i] - row.get(i).length() + 2));
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    if (nodeDir != null) {
      out.append("\nDevice nodes are relative to ").append(nodeDir).append('\n');
    }
    devices.stream()
        .filter(d -> d.get("driverVersion") != null)
        .findFirst()
        .ifPresent(d -> out.append("NVIDIA driver ").append(d.get("driverVersion")).append('\n'));
    return out.toString();
  }

  private static List<String> row(Map<String, Object> d, String indent, Path nodeDir) {
    {
      Object reason = d.get("healthReason");
      return List.of(
          text(d.get("resource")),
          indent + text(d.get("id")),
          text(d.get("model")),
          text(d.get("pciAddress")),
          text(d.get("numaNode")),
          text(d.get("health")) + (reason == null ? "" : " (" + reason + ")"),
          holder(d),
          text(d.get("heldSince")),
          String.join(" ", nodes(d).stream().map(n -> relative(nodeDir, n)).toList()));
    }
  }

  /**
   * {@code pod ns/name/container}, {@code mesos framework/task}, {@code dra_claim ns/name}, {@code
   * pending}, or {@code free}.
   */
  private static String holder(Map<String, Object> d) {
    String kind = text(d.get("holderKind"));
    String name = text(d.get("holder"));
    return switch (kind) {
      case "kubelet_pod" -> "pod " + name;
      case "mesos_task" -> "mesos " + name + fence(d.get("container"));
      case "dra_claim" -> "dra_claim " + name;
      case "kubelet_pending" -> "pending";
      case "" -> "";
      default -> kind;
    };
  }

  /**
   * A fenced Mesos task's user and memory limit, as {@code [as nobody (65534:65534), 32 MiB, cgroup
   * acceld/mesos/<id>]}; nothing when it runs unfenced.
   */
  private static String fence(Object container) {
    if (!(container instanceof Map<?, ?> c)) {
      return "";
    }
    StringBuilder out = new StringBuilder(" [");
    if (c.get("user") != null) {
      out.append("as ").append(c.get("user")).append(", ");
    }
    if (c.get("memoryBytes") instanceof Number n && n.longValue() > 0) {
      out.append(n.longValue() >> 20).append(" MiB, ");
    }
    out.append("cgroup acceld/mesos/").append(text(c.get("containerId"))).append(']');
    return out.toString();
  }

  private static String text(Object value) {
    return value == null ? "" : value.toString();
  }

  @SuppressWarnings("unchecked")
  private static List<String> nodes(Map<String, Object> device) {
    Object nodes = device.get("deviceNodes");
    return nodes instanceof List<?> list ? (List<String>) list : List.of();
  }

  /** The deepest directory every device node lies under, such as /dev; null if none. */
  private static Path commonDirectory(List<Map<String, Object>> devices) {
    Path common = null;
    for (Map<String, Object> d : devices) {
      for (String node : nodes(d)) {
        Path dir = Path.of(node).getParent();
        if (common == null) {
          common = dir;
        }
        while (common != null && dir != null && !dir.startsWith(common)) {
          common = common.getParent();
        }
      }
    }
    return common;
  }

  private static String relative(Path dir, String node) {
    return dir == null ? node : dir.relativize(Path.of(node)).toString();
  }
}
