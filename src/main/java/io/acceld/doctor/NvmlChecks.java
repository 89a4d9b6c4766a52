package io.acceld.doctor;

import io.acceld.config.Settings;
import io.acceld.discovery.DeviceClassifier;
import io.acceld.doctor.Bounded.Outcome;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlLoad;
import io.acceld.nvml.NvmlReturn;
import io.acceld.nvml.NvmlSymbols;
import io.acceld.util.ClientText;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The NVML library: where it was found, whether it initialises, the driver's versions, and whether
 * it exports every function the agent calls.
 */
final class NvmlChecks {
  static final String CHECK = "nvml";
  static final String LIBRARY = "nvml";
  static final String SYMBOLS = "nvml symbols";

  private NvmlChecks() {}

  static List<Finding> of(Examination e) {
    String spec = e.config().get(Settings.NVML_LIBRARY);
    if (e.nvml() instanceof Outcome.Late<NvmlLoad> late) {
      return List.of(
          Finding.fail(
              CHECK,
              LIBRARY,
              "loading and initialising "
                  + spec
                  + " did not finish within "
                  + Bounded.shown(late.limit())
                  + ": nvmlInit blocks in the driver",
              "run nvidia-smi: if it hangs too the driver or a GPU is wedged (dmesg | grep -i"
                  + " nvrm names it); drain the node and reboot it"));
    }
    if (e.nvml() instanceof Outcome.Threw<NvmlLoad> threw) {
      return List.of(
          Finding.fail(
              CHECK,
              LIBRARY,
              "loading " + spec + " failed: " + threw.error(),
              "point --nvml-library at the driver's libnvidia-ml.so.1 (ldconfig -p | grep"
                  + " libnvidia-ml)"));
    }
    NvmlLoad load = ((Outcome.Done<NvmlLoad>) e.nvml()).value();
    if (load instanceof NvmlLoad.Disabled) {
      return List.of(
          Finding.skip(
              CHECK,
              LIBRARY,
              "disabled by --nvml-library none: NVIDIA GPUs are known by PCI address, health by"
                  + " sysfs alone"));
    }
    if (load instanceof NvmlLoad.NotFound notFound) {
      String tried = "not found: tried " + String.join("; ", notFound.tried());
      if (nvidiaGpus(e) == 0) {
        return List.of(
            Finding.skip(CHECK, LIBRARY, tried + " (this node has no NVIDIA GPU; none needed)"));
      }
      return List.of(
          Finding.fail(
              CHECK,
              LIBRARY,
              tried,
              "install the NVIDIA driver's user-space library (libnvidia-ml.so.1, from the same"
                  + " driver release as the kernel module) or point --nvml-library at it; in a"
                  + " container, run with the NVIDIA container toolkit or mount the driver's"
                  + " library directory"));
    }
    if (load instanceof NvmlLoad.InitFailed failed) {
      return List.of(
          Finding.fail(CHECK, LIBRARY, failed.reason(), initFix(failed.returnCode()))
              .with("returnCode", NvmlReturn.name(failed.returnCode())));
    }
    Nvml nvml = ((NvmlLoad.Loaded) load).nvml();
    return List.of(library(e, nvml), symbols(nvml));
  }

  private static Finding library(Examination e, Nvml nvml) {
    String file = nvml.libraryFile().map(Object::toString).orElse("(file unknown)");
    // A soname resolves through the loader's cache: say which file it found. A path is the file.
    String found =
        file.equals(nvml.source()) ? "loaded from " + file : nvml.source() + " loaded from " + file;
    Outcome<Examination.Versions> outcome = e.versions().orElseThrow();
    if (!(outcome instanceof Outcome.Done<Examination.Versions> done)) {
      return Finding.fail(
          CHECK,
          LIBRARY,
          found + ", but it did not report the driver's version" + Outcomes.why(outcome),
          "run nvidia-smi: if it hangs or fails too, the driver is wedged; reboot the node");
    }
    Examination.Versions v = done.value();
    Optional<String> driver = v.driver().map(ClientText::escape);
    Optional<String> nvmlVersion = v.nvml().map(ClientText::escape);
    Finding f =
        Finding.pass(
                CHECK,
                LIBRARY,
                found
                    + ", driver "
                    + driver.orElse("(unknown)")
                    + ", CUDA "
                    + v.cuda().orElse("(unknown)")
                    + ", NVML "
                    + nvmlVersion.orElse("(unknown)"))
            .with("source", nvml.source())
            .with("library", file);
    if (driver.isPresent()) {
      f = f.with("driverVersion", driver.get());
    }
    if (v.cuda().isPresent()) {
      f = f.with("cudaVersion", v.cuda().get());
    }
    if (nvmlVersion.isPresent()) {
      f = f.with("nvmlVersion", nvmlVersion.get());
    }
    return f;
  }

  private static Finding symbols(Nvml nvml) {
    List<String> used = NvmlSymbols.used();
    List<String> missingRequired = new ArrayList<>();
    List<String> missingOptional = new ArrayList<>();
    for (String symbol : nvml.missingSymbols()) {
      (NvmlSymbols.optionalFeature(symbol).isPresent() ? missingOptional : missingRequired)
          .add(symbol);
    }
    List<String> missing = new ArrayList<>(nvml.missingSymbols());
    if (!missingRequired.isEmpty()) {
      return Finding.fail(
              CHECK,
              SYMBOLS,
              nvml.source()
                  + " lacks "
                  + missingRequired.size()
                  + " of the "
                  + used.size()
                  + " functions acceld calls that every NVIDIA driver exports: "
                  + String.join(", ", missingRequired)
                  + (missingOptional.isEmpty()
                      ? ""
                      : " (and the optional " + String.join(", ", missingOptional) + ")"),
              "this is not (all of) NVIDIA's NVML, perhaps another vendor's or a stub from a"
                  + " CUDA development package: point --nvml-library at the driver's"
                  + " libnvidia-ml.so.1 (ldconfig -p | grep libnvidia-ml), or reinstall the driver")
          .with("missing", missing);
    }
    if (!missingOptional.isEmpty()) {
      TreeSet<String> features = new TreeSet<>();
      missingOptional.forEach(s -> features.add(NvmlSymbols.optionalFeature(s).orElseThrow()));
      return Finding.pass(
              CHECK,
              SYMBOLS,
              (used.size() - missingOptional.size())
                  + " of the "
                  + used.size()
                  + " functions acceld calls are exported; an older driver without "
                  + String.join(", ", missingOptional)
                  + ", so the agent goes without "
                  + String.join(", ", features))
          .with("missing", missing);
    }
    return Finding.pass(
            CHECK, SYMBOLS, "all " + used.size() + " NVML functions acceld calls are exported")
        .with("missing", missing);
  }

  private static String initFix(int rc) {
    return switch (rc) {
      case NvmlReturn.ERROR_DRIVER_NOT_LOADED ->
          "load the kernel module: modprobe nvidia (is the driver built for the running kernel?"
              + " dkms status)";
      case NvmlReturn.ERROR_LIB_RM_VERSION_MISMATCH ->
          "the driver was upgraded without a reboot: reboot the node (or unload and reload the"
              + " nvidia modules) so the kernel module matches libnvidia-ml.so.1";
      case NvmlReturn.ERROR_NO_PERMISSION ->
          "run as root, or give the agent read and write access to /dev/nvidiactl and"
              + " /dev/nvidia*";
      case NvmlReturn.ERROR_FUNCTION_NOT_FOUND ->
          "this is not NVIDIA's NVML: point --nvml-library at the driver's libnvidia-ml.so.1"
              + " (ldconfig -p | grep libnvidia-ml)";
      default ->
          "run nvidia-smi, which reports the same failure in more words; dmesg | grep -i nvrm"
              + " shows the driver's side";
    };
  }

  /** How many NVIDIA GPUs discovery found in sysfs. */
  static long nvidiaGpus(Examination e) {
    return e.devices().stream()
        .filter(d -> d.vendorId() == DeviceClassifier.VENDOR_NVIDIA)
        .map(d -> d.pciAddress())
        .distinct()
        .count();
  }
}
