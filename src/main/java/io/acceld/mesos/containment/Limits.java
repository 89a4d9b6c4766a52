package io.acceld.mesos.containment;

/**
 * What a container may use: its tasks' {@code mem} plus its executor's, in bytes, and {@code cpus}.
 *
 * @param memoryBytes the memory limit; must be at least {@link #MIN_MEMORY_BYTES}
 * @param cpus the cpu resource, greater than 0
 * @param cpuQuota whether to also cap cpu time with a CFS quota of {@code cpus} (a hard limit);
 *     shares alone only weigh the task against others when the cpus are contended. The executor
 *     sets it from the task label {@link #CPU_QUOTA_LABEL}{@code =true}.
 */
public record Limits(long memoryBytes, double cpus, boolean cpuQuota) {
  /** The task label that asks for a CFS quota on top of shares. */
  public static final String CPU_QUOTA_LABEL = "acceld.io/cpu-quota";

  /** Below this a shell cannot even start; Mesos's own minimum for a container is 32 MiB. */
  public static final long MIN_MEMORY_BYTES = 4L << 20;

  /** The CFS period, the kernel's default of 100 ms. */
  public static final long CFS_PERIOD_MICROS = 100_000;

  /** The kernel's smallest CFS quota, 1 ms. */
  static final long MIN_CFS_QUOTA_MICROS = 1_000;

  public Limits {
    if (memoryBytes < MIN_MEMORY_BYTES) {
      throw new IllegalArgumentException(
          "memory limit " + memoryBytes + " bytes is below the minimum of " + MIN_MEMORY_BYTES);
    }
    if (!(cpus > 0) || Double.isInfinite(cpus)) {
      throw new IllegalArgumentException("cpus must be a positive number, got " + cpus);
    }
  }

  /** v1 {@code cpu.shares}: 1024 per cpu, as Mesos's {@code cgroups/cpu} sets it, at least 2. */
  public long cpuShares() {
    return Math.max(2, Math.round(cpus * 1024));
  }

  /**
   * v2 {@code cpu.weight} from the shares, by runc's conversion: shares 2..262144 map linearly onto
   * weight 1..10000, so a share of 1024 becomes weight 39.
   */
  public long cpuWeight() {
    long shares = Math.min(262_144, cpuShares());
    return 1 + ((shares - 2) * 9_999) / 262_142;
  }

  /** The CFS quota per {@link #CFS_PERIOD_MICROS}. */
  public long cpuQuotaMicros() {
    return Math.max(MIN_CFS_QUOTA_MICROS, Math.round(cpus * CFS_PERIOD_MICROS));
  }
}
