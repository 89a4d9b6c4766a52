package io.acceld.nvml;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds, loads and initialises NVML. NVML is optional: on a node without an NVIDIA driver the agent
 * keeps running on sysfs alone, so every failure ends in one WARN line and an empty result, never
 * an exception.
 *
 * <p>Loading happens here, on demand, and never in a static initialiser: a missing library would
 * otherwise surface as {@code ExceptionInInitializerError} on first touch of the interface.
 */
public final class NvmlLoader {
  private static final Logger log = LoggerFactory.getLogger(NvmlLoader.class);

  /** Library spec that disables NVML without a warning. */
  public static final String DISABLED = "none";

  /**
   * The driver's soname. Never the unversioned {@code libnvidia-ml.so}: that comes from dev/CUDA
   * stub packages, and the stub must not be used at runtime.
   */
  static final String SONAME = "libnvidia-ml.so.1";

  /** Where drivers, the GPU operator and GKE put the library when the loader cache misses it. */
  static final List<String> FALLBACK_PATHS =
      List.of(
          "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
          "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1",
          "/usr/lib64/libnvidia-ml.so.1",
          "/run/nvidia/driver/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
          "/usr/local/nvidia/lib64/libnvidia-ml.so.1");

  private static final int MAX_REASON_LENGTH = 240;

  private NvmlLoader() {}

  /**
   * Loads and initialises NVML.
   *
   * @param librarySpec {@code "none"} to disable NVML; null or blank to try the soname, then the
   *     {@link #FALLBACK_PATHS} that exist; otherwise a library path (relative paths resolve
   *     against the working directory)
   * @return the initialised library, or empty when NVML is disabled, absent or fails to initialise
   *     (after one WARN naming what was tried and why it failed)
   */
  public static Optional<Nvml> load(String librarySpec) {
    NvmlLoad result = attempt(librarySpec);
    if (result instanceof NvmlLoad.Loaded loaded) {
      Set<NvmlCapability> missing = EnumSet.complementOf(capabilitiesOf(loaded.nvml()));
      if (missing.isEmpty()) {
        log.info("NVML loaded from {}", loaded.nvml().source());
      } else {
        log.info("NVML loaded from {}; older driver without {}", loaded.nvml().source(), missing);
      }
      return Optional.of(loaded.nvml());
    }
    if (result instanceof NvmlLoad.NotFound notFound) {
      log.warn(
          "NVML unavailable, continuing without it: tried {}", String.join("; ", notFound.tried()));
    } else if (result instanceof NvmlLoad.InitFailed failed) {
      log.warn("NVML unavailable, continuing without it: {}", failed.reason());
    } else {
      log.debug("NVML disabled by configuration");
    }
    return Optional.empty();
  }

  /**
   * Loads and initialises NVML as {@link #load} does, logging nothing: the outcome says what
   * happened, for a caller that reports it itself.
   */
  public static NvmlLoad attempt(String librarySpec) {
    if (librarySpec != null && librarySpec.strip().equals(DISABLED)) {
      return new NvmlLoad.Disabled();
    }
    List<String> tried = new ArrayList<>();
    for (String candidate : candidates(librarySpec)) {
      if (candidate.startsWith("/") && !Files.exists(Path.of(candidate))) {
        tried.add(candidate + " (no such file)");
        continue;
      }
      NvmlLibrary lib;
      try {
        lib = Native.load(candidate, NvmlLibrary.class);
      } catch (LinkageError e) { // UnsatisfiedLinkError, or JNA's own native part unusable
        tried.add(candidate + " (" + reason(e) + ")");
        continue;
      }
      return initialise(candidate, lib);
    }
    return new NvmlLoad.NotFound(tried);
  }

  private static List<String> candidates(String librarySpec) {
    if (librarySpec == null || librarySpec.isBlank()) {
      List<String> candidates = new ArrayList<>();
      candidates.add(SONAME);
      candidates.addAll(FALLBACK_PATHS);
      return candidates;
    }
    String spec = librarySpec.strip();
    // A path with a directory part is made absolute so dlopen does not search for it.
    return List.of(spec.contains("/") ? Path.of(spec).toAbsolutePath().toString() : spec);
  }

  private static NvmlLoad initialise(String source, NvmlLibrary lib) {
    NvmlCallStats stats = new NvmlCallStats();
    int rc;
    try {
      rc = lib.nvmlInit_v2();
    } catch (UnsatisfiedLinkError e) {
      return new NvmlLoad.InitFailed(
          source,
          NvmlReturn.ERROR_FUNCTION_NOT_FOUND,
          source + " has no nvmlInit_v2 (" + reason(e) + ")");
    }
    stats.record("nvmlInit_v2", rc != NvmlReturn.SUCCESS);
    if (rc != NvmlReturn.SUCCESS) {
      return new NvmlLoad.InitFailed(
          source,
          rc,
          source + " loaded but nvmlInit_v2 failed with " + NvmlReturn.describe(rc) + hint(rc));
    }
    NativeLibrary nativeLibrary =
        ((Library.Handler) Proxy.getInvocationHandler(lib)).getNativeLibrary();
    Set<String> missing = missingSymbols(nativeLibrary);
    EnumSet<NvmlCapability> capabilities = EnumSet.noneOf(NvmlCapability.class);
    for (NvmlCapability capability : NvmlCapability.values()) {
      if (!missing.contains(capability.symbol())) {
        capabilities.add(capability);
      }
    }
    return new NvmlLoad.Loaded(
        new Nvml(
            MissingSymbols.tolerant(lib),
            source,
            capabilities,
            stats,
            missing,
            fileOf(nativeLibrary)));
  }

  /**
   * Looks every function acceld calls up once, so later calls never hit JNA's lazy lookup failure
   * and the capabilities and the missing list come from one pass.
   */
  private static Set<String> missingSymbols(NativeLibrary nativeLibrary) {
    Set<String> missing = new TreeSet<>();
    for (String symbol : NvmlSymbols.used()) {
      try {
        nativeLibrary.getFunction(symbol);
      } catch (UnsatisfiedLinkError e) {
        log.debug("NVML lacks {}", symbol);
        missing.add(symbol);
      }
    }
    return missing;
  }

  /** The file the dynamic loader took, found from where nvmlInit_v2 lives. */
  private static Optional<Path> fileOf(NativeLibrary nativeLibrary) {
    try {
      return MappedFiles.holding(Pointer.nativeValue(nativeLibrary.getFunction("nvmlInit_v2")));
    } catch (UnsatisfiedLinkError e) {
      return Optional.empty();
    }
  }

  private static EnumSet<NvmlCapability> capabilitiesOf(Nvml nvml) {
    return nvml.capabilities().isEmpty()
        ? EnumSet.noneOf(NvmlCapability.class)
        : EnumSet.copyOf(nvml.capabilities());
  }

  private static String hint(int rc) {
    return switch (rc) {
      case NvmlReturn.ERROR_DRIVER_NOT_LOADED -> " (is the nvidia kernel module loaded?)";
      case NvmlReturn.ERROR_LIB_RM_VERSION_MISMATCH ->
          " (driver upgraded without a reboot: user-space library and kernel module differ)";
      case NvmlReturn.ERROR_NO_PERMISSION -> " (no permission to open the NVIDIA device nodes)";
      default -> "";
    };
  }

  /** JNA's messages span lines and list every search path; keep the log line short. */
  private static String reason(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
    String oneLine = message.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= MAX_REASON_LENGTH
        ? oneLine
        : oneLine.substring(0, MAX_REASON_LENGTH) + "...";
  }
}
