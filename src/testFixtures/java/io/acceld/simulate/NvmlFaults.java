package io.acceld.simulate;

/**
 * The NVML double's fault and variant knobs, which only tests turn: a failing {@code nvmlInit}, a
 * GPU already lost, ECC off, a narrower set of supported events. Simulate mode never sets them.
 */
public final class NvmlFaults {
  private NvmlFaults() {}

  /** Makes {@code nvmlInit_v2} fail with this NVML return code (e.g. 9, DRIVER_NOT_LOADED). */
  public static NvmlScenario initError(NvmlScenario scenario, int nvmlReturnCode) {
    return scenario.withInitError(nvmlReturnCode);
  }

  /** {@code gpu}, already fallen off the bus when NVML initialises (if {@code lost}). */
  public static NvmlScenario.Gpu lost(NvmlScenario.Gpu gpu, boolean lost) {
    return gpu.with("lost", lost ? "1" : "0");
  }

  /** {@code gpu} with ECC on or off; off, ECC counters and retired pages answer NOT_SUPPORTED. */
  public static NvmlScenario.Gpu ecc(NvmlScenario.Gpu gpu, boolean enabled) {
    return gpu.with("ecc", enabled ? "1" : "0");
  }

  /** {@code gpu} supporting only the NVML event types in {@code mask} (0x0b = XID, DBE, SBE). */
  public static NvmlScenario.Gpu supportedEvents(NvmlScenario.Gpu gpu, long mask) {
    return gpu.with("events", "0x" + Long.toHexString(mask));
  }

  /** {@code gpu} reporting {@code uuid}, such as another GPU's (a duplicate UUID). */
  public static NvmlScenario.Gpu uuid(NvmlScenario.Gpu gpu, String uuid) {
    return gpu.with("uuid", uuid).with("duplicate", "1");
  }

  /** {@code gpu} reporting PCI bus ID {@code address}, such as another GPU's (a duplicate). */
  public static NvmlScenario.Gpu pciBusId(NvmlScenario.Gpu gpu, String address) {
    return gpu.with("bus", address).with("duplicate", "1");
  }
}
