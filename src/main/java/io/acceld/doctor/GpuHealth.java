package io.acceld.doctor;

import io.acceld.inventory.Device;
import io.acceld.inventory.HealthProblem;
import io.acceld.nvml.NvmlMigMode;
import io.acceld.nvml.NvmlRemappedRows;
import io.acceld.util.ClientText;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Judges one GPU's reading: each thing wrong with it, and the fix for each, in one line. A GPU is
 * failed for being lost, for uncorrectable ECC errors since the driver loaded (the agent marks it
 * unhealthy for them), for a page retirement or row remap waiting for a reset or a remap that
 * failed, for a MIG mode change waiting for a reset, for a NUMA node the firmware does not give on
 * a machine with more than one, and for NVML reads that fail.
 */
final class GpuHealth {
  private GpuHealth() {}

  static Finding judge(GpuReading r, Optional<Device> device, OptionalInt numaNodes) {
    String subject = "gpu " + r.index();
    List<String> good = new ArrayList<>();
    List<String> bad = new ArrayList<>();
    Set<String> fixes = new LinkedHashSet<>();
    String reset =
        "drain the GPU's workloads, then reset it (nvidia-smi -r -i "
            + r.index()
            + ") or reboot the node";
    if (r.lost()) {
      bad.add("NVML reports it lost (GPU_IS_LOST: fallen off the bus)");
      fixes.add(
          "drain the node and reboot it; if it happens again, reseat or replace the GPU (check"
              + " its power and cooling)");
    }
    if (r.eccUncorrected().isPresent() && r.eccUncorrected().getAsLong() > 0) {
      bad.add(
          r.eccUncorrected().getAsLong()
              + " uncorrectable ECC errors since the driver loaded (the agent marks it unhealthy)");
      fixes.add(reset + "; if they come back, have the GPU replaced");
    } else if (r.eccUncorrected().isPresent()) {
      good.add(
          "ECC errors since the driver loaded: 0 uncorrectable, "
              + r.eccCorrected().orElse(0)
              + " corrected");
    } else if (!r.lost()) {
      good.add("ECC not reported (off or unsupported)");
    }
    if (r.retiredPagesPending().orElse(false)) {
      bad.add("retired pages are pending");
      fixes.add(reset + " so the retirement takes effect");
    }
    if (r.remappedRows().map(NvmlRemappedRows::failed).orElse(false)) {
      bad.add("a row remapping failed: the GPU has no spare rows left");
      fixes.add("have the GPU replaced (RMA); until then keep workloads off it");
    } else if (r.remappedRows().map(NvmlRemappedRows::pending).orElse(false)) {
      bad.add("a row remapping is pending");
      fixes.add(reset + " so the remapping takes effect");
    }
    if (!r.lost()
        && !r.retiredPagesPending().orElse(false)
        && !r.remappedRows().map(x -> x.pending() || x.failed()).orElse(false)) {
      good.add("no retired pages or row remaps pending");
    }
    if (r.mig().isPresent()) {
      NvmlMigMode mig = r.mig().get();
      if (mig.changePending()) {
        bad.add(
            "MIG mode is "
                + enabled(mig.current())
                + " and becomes "
                + enabled(mig.pending())
                + " at the next GPU reset; the agent advertises it as it is now");
        fixes.add(
            reset
                + " to apply the MIG change, or set it back (nvidia-smi -i "
                + r.index()
                + " -mig "
                + (mig.current() ? 1 : 0)
                + ")");
      } else {
        good.add("MIG " + enabled(mig.current()));
      }
    } else if (!r.lost()) {
      good.add("MIG not supported");
    }
    int numa = device.map(Device::numaNode).orElse(-1);
    if (device.isPresent() && numa < 0 && numaNodes.orElse(1) > 1) {
      bad.add("its NUMA node is unknown on a node with " + numaNodes.getAsInt() + " NUMA nodes");
      fixes.add(
          "the firmware does not say where the GPU sits (sysfs numa_node is -1): enable NUMA"
              + " (ACPI SRAT/_PXM) in the BIOS or update it; until then topology-aware"
              + " allocation cannot keep its jobs on local CPUs");
    } else if (numa >= 0) {
      good.add("NUMA node " + numa);
    } else if (device.isPresent()) {
      good.add("NUMA node not reported (a single-node system)");
    }
    device.ifPresent(
        d ->
            d.problems().stream()
                .filter(p -> p.kind() == HealthProblem.Kind.NVML_ERROR)
                .forEach(
                    p -> {
                      bad.add(p.describe());
                      fixes.add(
                          "NVML reports the same GPU twice (a firmware or driver fault):"
                              + " update the GPU's firmware and driver");
                    }));
    for (String error : r.errors()) {
      bad.add("NVML " + error);
      fixes.add("run nvidia-smi -q -i " + r.index() + "; a GPU that fails reads needs a reset");
    }
    String identity =
        r.uuid().map(ClientText::escape).orElse("(UUID unreadable)")
            + r.name().map(n -> " " + ClientText.quote(n)).orElse("")
            + r.pciAddress().map(a -> " at " + a).orElse("");
    List<String> parts = bad.isEmpty() ? good : bad;
    String found = identity + ": " + String.join("; ", parts);
    Finding f =
        bad.isEmpty()
            ? Finding.pass(GpuChecks.CHECK, subject, found)
            : Finding.fail(GpuChecks.CHECK, subject, found, String.join("; ", fixes));
    f = f.with("index", r.index()).with("lost", r.lost()).with("numaNode", numa);
    if (r.uuid().isPresent()) {
      f = f.with("uuid", ClientText.escape(r.uuid().get()));
    }
    if (r.pciAddress().isPresent()) {
      f = f.with("pciAddress", r.pciAddress().get());
    }
    if (r.eccUncorrected().isPresent()) {
      f = f.with("eccUncorrected", r.eccUncorrected().getAsLong());
    }
    if (r.mig().isPresent()) {
      f = f.with("migEnabled", r.mig().get().current());
    }
    return f;
  }

  private static String enabled(boolean on) {
    return on ? "enabled" : "disabled";
  }
}
