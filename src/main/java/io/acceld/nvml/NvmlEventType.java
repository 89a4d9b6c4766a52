package io.acceld.nvml;

/** NVML event type bits ({@code nvmlEventType*}), combined into masks for registration. */
public final class NvmlEventType {
  public static final long SINGLE_BIT_ECC_ERROR = 0x0001L;
  public static final long DOUBLE_BIT_ECC_ERROR = 0x0002L;
  public static final long PSTATE = 0x0004L;

  /** {@link NvmlEvent#eventData()} is the XID. */
  public static final long XID_CRITICAL_ERROR = 0x0008L;

  public static final long CLOCK = 0x0010L;
  public static final long POWER_SOURCE_CHANGE = 0x0080L;
  public static final long MIG_CONFIG_CHANGE = 0x0100L;

  /** What a health checker registers (masked by the device's supported types). */
  public static final long HEALTH =
      XID_CRITICAL_ERROR | DOUBLE_BIT_ECC_ERROR | SINGLE_BIT_ECC_ERROR;

  private NvmlEventType() {}
}
