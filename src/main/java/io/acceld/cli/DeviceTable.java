package io.acceld.cli;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The {@code devices} table for people: one aligned row per device. */
final class DeviceTable {
  private static final List<String> HEADER =
      List.of("RESOURCE", "ID", "MODEL", "PCI", "NUMA", "HEALTH", "DEVICE NODES");

  private DeviceTable() {}

  static String render(Inventory inventory, Path devRoot) {
    if (inventory.devices().isEmpty()) {
      return "No accelerators found.\n";
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(HEADER);
    for (Device d : inventory.devices()) {
      String health = d.health().wireValue() + d.healthReason().map(r -> " (" + r + ")").orElse("");
      rows.add(
          List.of(
              d.resource(),
              d.id(),
              d.model(),
              d.pciAddress(),
              Integer.toString(d.numaNode()),
              health,
              String.join(" ", d.deviceNodes())));
    }
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
    out.append("\nDevice nodes are relative to ").append(devRoot).append('\n');
    inventory
        .node()
        .nvidiaDriverVersion()
        .ifPresent(
            v ->
                out.append("NVIDIA driver ")
                    .append(v)
                    .append(inventory.node().cudaVersion().map(c -> ", CUDA " + c).orElse(""))
                    .append('\n'));
    return out.toString();
  }
}
