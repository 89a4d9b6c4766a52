package io.acceld.nvml;

/**
 * {@code nvmlGpuTopologyLevel_t}: the closest common ancestor of two GPUs. Lower is closer, so
 * levels compare numerically.
 */
public final class NvmlTopologyLevel {
  /** Same board (e.g. the two GPUs of a K80). */
  public static final int INTERNAL = 0;

  /** Behind one PCIe switch. */
  public static final int SINGLE = 10;

  /** Behind several PCIe switches, without crossing a host bridge. */
  public static final int MULTIPLE = 20;

  public static final int HOSTBRIDGE = 30;

  /** Same NUMA node. */
  public static final int NODE = 40;

  /** Crosses the SMP interconnect between sockets. */
  public static final int SYSTEM = 50;

  /** NVML could not tell (agent-side value, not an NVML level). */
  public static final int UNKNOWN = -1;

  private NvmlTopologyLevel() {}
}
