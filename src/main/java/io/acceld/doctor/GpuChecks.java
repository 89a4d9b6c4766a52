package io.acceld.doctor;

import io.acceld.config.Settings;
import io.acceld.discovery.DeviceClassifier;
import io.acceld.doctor.Bounded.Outcome;
import io.acceld.inventory.Device;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * One line per GPU NVML counts, with its health now ({@link GpuHealth} judges it); a GPU whose NVML
 * calls hang; and a GPU sysfs shows that NVML does not. XIDs are events, seen only while they
 * happen: a running agent keeps them, and {@code --agent} reports its marks.
 */
final class GpuChecks {
  static final String CHECK = "gpu";

  private GpuChecks() {}

  static List<Finding> of(Examination e) {
    List<Finding> findings = new ArrayList<>();
    if (!e.nvmlLoaded()) {
      if (NvmlChecks.nvidiaGpus(e) > 0) {
        findings.add(
            Finding.skip(
                CHECK, "gpu health", "not read: NVML is not loaded (see the nvml line above)"));
      }
      return findings;
    }
    Outcome<Integer> count = e.gpuCount().orElseThrow();
    if (!(count instanceof Outcome.Done<Integer>)) {
      findings.add(
          Finding.fail(
              CHECK,
              "gpu count",
              "NVML did not count the GPUs" + Outcomes.why(count),
              "run nvidia-smi: if it hangs or fails too, the driver is wedged; reboot the node"));
      return findings;
    }
    OptionalInt numaNodes = NumaNodes.count(e.config().get(Settings.SYSFS_ROOT));
    Set<String> seen = new LinkedHashSet<>();
    for (int index = 0; index < e.gpus().size(); index++) {
      Outcome<GpuReading> outcome = e.gpus().get(index);
      if (outcome instanceof Outcome.Done<GpuReading> done) {
        GpuReading r = done.value();
        r.pciAddress().ifPresent(seen::add);
        findings.add(GpuHealth.judge(r, wholeGpu(e, r.pciAddress()), numaNodes));
      } else {
        findings.add(
            Finding.fail(
                    CHECK,
                    "gpu " + index,
                    "NVML calls on it did not return" + Outcomes.why(outcome),
                    "run nvidia-smi -i "
                        + index
                        + ": if it hangs too, the GPU or the driver is wedged; drain the node,"
                        + " then reset the GPU (nvidia-smi -r -i "
                        + index
                        + ") or reboot")
                .with("index", index));
      }
    }
    for (Device d : e.devices()) {
      boolean wholeNvidiaGpu =
          d.vendorId() == DeviceClassifier.VENDOR_NVIDIA
              && d.nvidia().flatMap(n -> n.mig()).isEmpty();
      if (wholeNvidiaGpu
          && !seen.contains(d.pciAddress())
          && !d.driver().orElse("").equals("vfio-pci")) {
        boolean allRead = e.gpus().stream().allMatch(o -> o instanceof Outcome.Done<GpuReading>);
        if (allRead) {
          findings.add(
              Finding.fail(
                      CHECK,
                      "gpu " + d.pciAddress(),
                      "sysfs shows an NVIDIA GPU at "
                          + d.pciAddress()
                          + " (driver "
                          + d.driver().orElse("none")
                          + ") that NVML does not report",
                      "bind it to the nvidia driver (it may be bound to nouveau, or have fallen"
                          + " off the bus: dmesg | grep -i nvrm); a GPU meant for passthrough"
                          + " belongs to vfio-pci")
                  .with("pciAddress", d.pciAddress()));
        }
      }
    }
    return findings;
  }

  private static Optional<Device> wholeGpu(Examination e, Optional<String> address) {
    return address.flatMap(
        a ->
            e.devices().stream()
                .filter(d -> d.pciAddress().equals(a))
                .filter(d -> d.nvidia().flatMap(n -> n.mig()).isEmpty())
                .findFirst());
  }
}
