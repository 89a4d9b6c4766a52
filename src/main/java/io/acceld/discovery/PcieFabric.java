package io.acceld.discovery;

import io.acceld.inventory.PcieLevel;
import java.util.List;

/**
 * Estimates how close two PCI devices are from their places in the sysfs bridge hierarchy, for
 * devices NVML does not describe. It mirrors NVML's levels: a shared switch is {@link
 * PcieLevel#SINGLE} (or {@link PcieLevel#MULTIPLE} when several switches sit between), a shared
 * host bridge is {@link PcieLevel#HOSTBRIDGE}, and different host bridges are {@link
 * PcieLevel#NODE} or {@link PcieLevel#SYSTEM} depending on the NUMA node.
 */
public final class PcieFabric {
  private PcieFabric() {}

  public static PcieLevel level(PciDevice a, PciDevice b) {
    List<String> pa = a.fabricPath();
    List<String> pb = b.fabricPath();
    if (pa.size() < 2 || pb.size() < 2) {
      return PcieLevel.UNKNOWN;
    }
    if (!pa.get(0).equals(pb.get(0))) {
      boolean sameNode = a.numaNode() >= 0 && a.numaNode() == b.numaNode();
      return sameNode ? PcieLevel.NODE : PcieLevel.SYSTEM;
    }
    // Bridges below the host bridge that both devices sit under (excluding the devices themselves).
    int common = 0;
    int limit = Math.min(pa.size(), pb.size()) - 1;
    for (int i = 1; i < limit && pa.get(i).equals(pb.get(i)); i++) {
      common++;
    }
    if (common == 0) {
      return PcieLevel.HOSTBRIDGE;
    }
    // Below the deepest shared bridge, each side passes one downstream port per switch.
    int hops = Math.max(pa.size(), pb.size()) - 1 - common;
    return hops <= 2 ? PcieLevel.SINGLE : PcieLevel.MULTIPLE;
  }
}
