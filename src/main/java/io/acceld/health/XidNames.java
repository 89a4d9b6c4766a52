package io.acceld.health;

import java.util.Map;

/** Names of the XIDs operators meet most, for log lines and reasons (NVIDIA's XID catalogue). */
public final class XidNames {
  private static final Map<Integer, String> NAMES =
      Map.ofEntries(
          Map.entry(13, "Graphics Engine Exception"),
          Map.entry(31, "GPU memory page fault"),
          Map.entry(43, "GPU stopped processing"),
          Map.entry(45, "Preemptive cleanup, due to previous errors"),
          Map.entry(48, "Double Bit ECC Error"),
          Map.entry(63, "ECC page retirement or row remapping recording event"),
          Map.entry(64, "ECC page retirement or row remapping recording failure"),
          Map.entry(68, "Video processor exception"),
          Map.entry(74, "NVLINK Error"),
          Map.entry(79, "GPU has fallen off the bus"),
          Map.entry(92, "High single-bit ECC error rate"),
          Map.entry(94, "Contained ECC error"),
          Map.entry(95, "Uncontained ECC error"),
          Map.entry(109, "Context Switch Timeout Error"),
          Map.entry(119, "GSP RPC Timeout"),
          Map.entry(120, "GSP Error"),
          Map.entry(121, "C2C Link Error"),
          Map.entry(140, "Unrecovered ECC Error"),
          Map.entry(143, "GPU Initialization Failure"));

  private XidNames() {}

  public static String name(int xid) {
    return NAMES.getOrDefault(xid, "Unknown Error");
  }
}
