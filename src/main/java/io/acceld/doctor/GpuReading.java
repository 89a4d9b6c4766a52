package io.acceld.doctor;

import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlDevice;
import io.acceld.nvml.NvmlEccCounter;
import io.acceld.nvml.NvmlEccErrorType;
import io.acceld.nvml.NvmlException;
import io.acceld.nvml.NvmlMigMode;
import io.acceld.nvml.NvmlRemappedRows;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * What NVML says about one GPU's health right now, read once by index: identity, whether it is
 * lost, its ECC counters since the driver loaded, pending page retirements and row remaps, and its
 * MIG mode. An empty value is one the GPU or driver does not report (ECC off, no MIG, an older
 * driver); {@code errors} lists the reads that failed for any other reason.
 */
record GpuReading(
    int index,
    Optional<String> pciAddress,
    Optional<String> uuid,
    Optional<String> name,
    boolean lost,
    OptionalLong eccUncorrected,
    OptionalLong eccCorrected,
    Optional<Boolean> retiredPagesPending,
    Optional<NvmlRemappedRows> remappedRows,
    Optional<NvmlMigMode> mig,
    List<String> errors) {

  GpuReading {
    errors = List.copyOf(errors);
  }

  /**
   * Reads GPU {@code index}. Every call may block on a wedged GPU, so callers bound it ({@link
   * Bounded}).
   */
  static GpuReading read(Nvml nvml, int index) {
    Reader r = new Reader();
    Optional<NvmlDevice> device = r.value("its handle", () -> nvml.deviceByIndex(index));
    if (device.isEmpty()) {
      return r.reading(index, Optional.empty(), Optional.empty(), Optional.empty(), nvml, null);
    }
    NvmlDevice d = device.get();
    Optional<String> address = r.value("its PCI address", () -> nvml.pciInfo(d).sysfsAddress());
    Optional<String> uuid = r.value("its UUID", () -> nvml.uuid(d));
    Optional<String> name = r.value("its name", () -> nvml.name(d));
    return r.reading(index, address, uuid, name, nvml, d);
  }

  /** Collects failures instead of stopping at the first; a lost GPU is not asked again. */
  private static final class Reader {
    private final List<String> errors = new ArrayList<>();
    private boolean lost;

    <T> Optional<T> value(String what, Supplier<T> call) {
      if (lost) {
        return Optional.empty();
      }
      try {
        return Optional.ofNullable(call.get());
      } catch (NvmlException e) {
        if (e.isGpuLost()) {
          lost = true;
        } else {
          errors.add("cannot read " + what + ": " + e.getMessage());
        }
        return Optional.empty();
      }
    }

    GpuReading reading(
        int index,
        Optional<String> address,
        Optional<String> uuid,
        Optional<String> name,
        Nvml nvml,
        NvmlDevice d) {
      if (d == null) {
        return new GpuReading(
            index,
            address,
            uuid,
            name,
            lost,
            OptionalLong.empty(),
            OptionalLong.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            errors);
      }
      Optional<OptionalLong> uncorrected =
          value(
              "its uncorrectable ECC count",
              () -> nvml.totalEccErrors(d, NvmlEccErrorType.UNCORRECTED, NvmlEccCounter.VOLATILE));
      Optional<OptionalLong> corrected =
          value(
              "its correctable ECC count",
              () -> nvml.totalEccErrors(d, NvmlEccErrorType.CORRECTED, NvmlEccCounter.VOLATILE));
      Optional<Boolean> retired =
          value("its retired-pages state", () -> nvml.retiredPagesPending(d)).flatMap(o -> o);
      Optional<NvmlRemappedRows> remapped =
          value("its remapped rows", () -> nvml.remappedRows(d)).flatMap(o -> o);
      Optional<NvmlMigMode> mig = value("its MIG mode", () -> nvml.migMode(d)).flatMap(o -> o);
      return new GpuReading(
          index,
          address,
          uuid,
          name,
          lost,
          uncorrected.orElse(OptionalLong.empty()),
          corrected.orElse(OptionalLong.empty()),
          retired,
          remapped,
          mig,
          errors);
    }
  }
}
