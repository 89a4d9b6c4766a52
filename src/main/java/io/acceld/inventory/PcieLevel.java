package io.acceld.inventory;

/**
 * How close two devices are on the PCIe fabric, from closest to farthest. The values are NVML's
 * {@code nvmlGpuTopologyLevel_t}, so an NVML answer maps one to one; for other devices the level is
 * derived from the sysfs bridge hierarchy.
 */
public enum PcieLevel {
  /** Same board (multi-GPU boards). */
  INTERNAL(0),
  /** Behind one PCIe switch. */
  SINGLE(10),
  /** Behind several switches, without crossing a host bridge. */
  MULTIPLE(20),
  /** On the same host bridge. */
  HOSTBRIDGE(30),
  /** On the same NUMA node, across host bridges. */
  NODE(40),
  /** Across the CPU interconnect. */
  SYSTEM(50),
  /** Not known. Scored as the farthest. */
  UNKNOWN(60);

  private final int nvmlValue;

  PcieLevel(int nvmlValue) {
    this.nvmlValue = nvmlValue;
  }

  public int nvmlValue() {
    return nvmlValue;
  }

  /** The level for an NVML topology value; {@link #UNKNOWN} for anything NVML does not define. */
  public static PcieLevel fromNvml(int value) {
    for (PcieLevel level : values()) {
      if (level != UNKNOWN && level.nvmlValue == value) {
        return level;
      }
    }
    return UNKNOWN;
  }
}
