package io.acceld.testing;

import io.acceld.simulate.NvmlScenario;
import io.acceld.simulate.NvmlScenario.Gpu;
import java.util.Locale;

/** Scenarios shared by the NVML tests. */
public final class NvmlScenarios {
  public static final String DRIVER = "550.54.15";
  public static final int CUDA = 12040;
  public static final long H100_MEMORY = 85_899_345_920L;

  /** PCI buses of an 8-GPU HGX board: 4 GPUs on NUMA node 0, 4 on node 1. */
  private static final int[] BUSES = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};

  private NvmlScenarios() {}

  public static String uuid(int index) {
    return String.format(Locale.ROOT, "GPU-0b3f%04x-1111-2222-3333-4444%08x", index, index);
  }

  /** The sysfs address the probe should report for GPU {@code index}. */
  public static String pciAddress(int index) {
    return String.format(Locale.ROOT, "0000:%02x:00.0", BUSES[index]);
  }

  /** An H100 on NUMA node {@code index / 4}. Upper-case bus ids, as NVML writes them. */
  public static Gpu h100(int index) {
    int numa = index / 4;
    return Gpu.of(uuid(index), pciAddress(index).toUpperCase(Locale.ROOT))
        .name("NVIDIA H100 80GB HBM3")
        .pciDeviceId(0x233010de)
        .minor(index)
        .memoryBytes(H100_MEMORY)
        .numaNode(numa)
        .cpus(numa == 0 ? "0-31,64-95" : "32-63,96-127")
        .mig(NvmlScenario.Mig.DISABLED)
        .computeCapability("9.0")
        .temperatureCelsius(40 + index)
        .powerMilliwatts(300_000 + index)
        .utilization(10 + index, 5 + index)
        .codecUtilization(index, 2 + index)
        .clocksMhz(1980 - index, 2619)
        .totalEnergyMillijoules(5_000_000_000L + index)
        .pcieReplays(3 + index)
        .remappedRows(2 + index, index, false, false)
        .memoryTemperatureCelsius(50 + index)
        .nvlinkErrors(index, 2L * index, 3L * index, 0)
        .memoryUsedBytes(1L << 30);
  }

  /** {@code count} H100s, driver and CUDA set, no explicit topology. */
  public static NvmlScenario h100s(int count) {
    NvmlScenario scenario = NvmlScenario.empty().driver(DRIVER).cuda(CUDA);
    for (int i = 0; i < count; i++) {
      scenario = scenario.gpu(h100(i));
    }
    return scenario;
  }
}
