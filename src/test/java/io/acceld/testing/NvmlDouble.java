package io.acceld.testing;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.acceld.config.AgentConfig;
import io.acceld.config.ConfigLoader;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlLoader;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.NvmlScenario;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;

/**
 * A private copy of the NVML test double (built by {@code native-probes/build.sh}) in a test's temp
 * dir, next to its scenario file and control file.
 *
 * <p>Each copy is a separate file, so the dynamic loader maps it as a separate library with its own
 * globals: tests do not share GPU state even within one JVM. {@link #control()} binds the double's
 * fault-injection functions from the same path, hence the same library instance as {@link #load()}.
 */
public final class NvmlDouble {
  /** Where Maven puts the built double; the fallback lets IDE runs work after one build. */
  private static final String NATIVE_PROBES_PROPERTY = "acceld.nativeProbes";

  private static final String LIBRARY = "libnvidia-ml.so.1";

  /** The double's test-only controls (see native-probes/fake_nvml_control.c). */
  public interface Control extends Library {
    /** Returns the number of event sets it was queued in; negative on a bad GPU/not init. */
    int acceld_fake_inject_event(int gpu, long eventType, long eventData);

    int acceld_fake_set_lost(int gpu, int lost);

    /** 1: every NVML call on that GPU blocks until set back to 0 (a wedged driver). */
    int acceld_fake_set_hung(int gpu, int hung);

    int acceld_fake_fail_waits(int returnCode, int count);

    long acceld_fake_call_count();

    /** Threads inside {@code nvmlEventSetWait_v2} now. */
    int acceld_fake_waiting();

    int acceld_fake_set_ecc(int gpu, long corrected, long uncorrected);

    int acceld_fake_set_retired_pending(int gpu, int pending);

    /**
     * An event attributed to GPU instance {@code gi} and compute instance {@code ci} (-1: none).
     */
    int acceld_fake_inject_instance_event(int gpu, long eventType, long eventData, int gi, int ci);
  }

  private final Path directory;
  private Control control;

  private NvmlDouble(Path directory) {
    this.directory = directory;
  }

  /** The current-driver double with {@code scenario}, in {@code dir}. */
  public static NvmlDouble create(Path dir, NvmlScenario scenario) {
    return copy(builtLibrary(), dir, scenario);
  }

  /**
   * The sparse variant: a foreign NVML that also lacks CPU affinity, topology, retired pages, power
   * and event sets.
   */
  public static NvmlDouble createSparse(Path dir, NvmlScenario scenario) {
    return copy(builtLibrary().getParent().resolve("sparse").resolve(LIBRARY), dir, scenario);
  }

  /** The old-driver variant (no MIG, compute capability, NVLink, CUDA v2, memory v2 symbols). */
  public static NvmlDouble createOldDriver(Path dir, NvmlScenario scenario) {
    return copy(builtLibrary().getParent().resolve("old-driver").resolve(LIBRARY), dir, scenario);
  }

  private static Path builtLibrary() {
    Path dir = Path.of(System.getProperty(NATIVE_PROBES_PROPERTY, "target/native-probes"));
    Path library = dir.resolve(LIBRARY);
    if (!Files.isRegularFile(library)) {
      throw new IllegalStateException(
          library + " is missing: build it with `sh native-probes/build.sh " + dir + "`");
    }
    return library;
  }

  private static NvmlDouble copy(Path library, Path dir, NvmlScenario scenario) {
    try {
      Files.createDirectories(dir);
      Files.copy(library, dir.resolve(LIBRARY));
      scenario.writeTo(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new NvmlDouble(dir);
  }

  public Path directory() {
    return directory;
  }

  /** Absolute path of this copy; pass it to {@link NvmlLoader#load}. */
  public Path libraryPath() {
    return directory.resolve(LIBRARY).toAbsolutePath();
  }

  /**
   * Settings that point discovery at {@code node}'s sysfs, {@code /dev} and {@code /proc} trees and
   * at this library, everything else default: what a test of discovery or health outside an agent
   * opens {@code NodeDiscovery} with.
   */
  public AgentConfig discoveryOf(FixtureNode node) {
    return ConfigLoader.load(
        Map.of(
            "sysfs-root", node.tree().sysfsRoot().toString(),
            "dev-root", node.tree().devRoot().toString(),
            "proc-root", node.tree().procRoot().toString(),
            "nvml-library", libraryPath().toString()),
        Map.of(),
        Optional.empty());
  }

  /** The file the double's control thread polls while NVML is initialised. */
  public Path controlFile() {
    return directory.resolve("nvml-control");
  }

  /** Replaces the scenario; the double reads it at the next first-init after a full shutdown. */
  public void writeScenario(NvmlScenario scenario) {
    try {
      scenario.writeTo(directory);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Loads this copy through the production loader. */
  public Optional<Nvml> load() {
    return NvmlLoader.load(libraryPath().toString());
  }

  /** Like {@link #load()}, failing the test if NVML did not come up. */
  public Nvml open() {
    return load().orElseThrow(() -> new AssertionError("NVML double did not load: " + this));
  }

  /** Fault injection on this copy (same library instance as {@link #load()}). */
  public synchronized Control control() {
    if (control == null) {
      control = Native.load(libraryPath().toString(), Control.class);
    }
    return control;
  }

  /** Appends one command line to {@link #controlFile()}, e.g. {@code xid 1 48}. */
  public void appendControl(String line) {
    try {
      Files.writeString(
          controlFile(),
          line + "\n",
          StandardCharsets.US_ASCII,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String toString() {
    return "NvmlDouble[" + libraryPath() + "]";
  }
}
