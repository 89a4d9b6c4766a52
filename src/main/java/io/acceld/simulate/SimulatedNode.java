package io.acceld.simulate;

import io.acceld.config.MigLayout;
import io.acceld.config.Setting;
import io.acceld.config.Settings;
import io.acceld.util.AtomicFiles;
import io.acceld.util.UniquePaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node {@code --simulate} runs on: the eight-GPU fixture (or {@code --simulate-gpus} of them in
 * groups of eight) written to a temporary directory, and a private copy of the NVML double with the
 * fixture's scenario beside it. The agent sees only roots and a library path; every other code path
 * is the production one.
 */
public final class SimulatedNode implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SimulatedNode.class);

  /**
   * Env var naming the directory that holds the built NVML double. Read from the environment the
   * caller passes, never from the process's own, so an in-process run decides what it finds.
   */
  public static final String NATIVE_PROBES_ENV = "ACCELD_NATIVE_PROBES";

  /** Where the simulated node's Node Feature Discovery features directory is, under its root. */
  static final String FEATURES_DIR = "node-feature-discovery/features.d";

  public static final String DOUBLE_FILE = "libnvidia-ml.so.1";

  /** The file the double reads fault commands from, beside its scenario. */
  public static final String CONTROL_FILE = "nvml-control";

  private final Path root;
  private final Optional<Path> nvmlRoot;
  private final FixtureNode node;
  private final Optional<Path> nvmlLibrary;

  private SimulatedNode(
      Path root, Optional<Path> nvmlRoot, FixtureNode node, Optional<Path> nvmlLibrary) {
    this.root = root;
    this.nvmlRoot = nvmlRoot;
    this.node = node;
    this.nvmlLibrary = nvmlLibrary;
  }

  /**
   * A new owner-only directory in {@code parent} ({@code --simulate-dir}, a tmpfs by default), or
   * in the JVM's temporary directory when {@code parent} cannot be written. The node is some 600
   * files: on a tmpfs they take 10 ms, on a busy disk's journal up to half a second of the start.
   */
  private static Path newDirectory(Path parent, String prefix) throws IOException {
    try {
      return ownerOnlyDirectory(parent, prefix);
    } catch (IOException | UnsupportedOperationException e) {
      log.debug("--simulate-dir {} is not usable ({}); using the temporary directory", parent, e);
      return ownerOnlyDirectory(javaTmpdir(), prefix);
    }
  }

  private static Path javaTmpdir() {
    return Path.of(System.getProperty("java.io.tmpdir"));
  }

  private static Path ownerOnlyDirectory(Path parent, String prefix) throws IOException {
    return UniquePaths.create(
        parent,
        prefix,
        "",
        path ->
            Files.createDirectory(
                path, PosixFilePermissions.asFileAttribute(AtomicFiles.DIRECTORY_OWNER_ONLY)));
  }

  /**
   * Builds the node in a new temporary directory.
   *
   * @param gpus how many GPUs the node has ({@link Fixtures#node}); 8 is the eight-GPU node
   * @param parent where to create the node's directory ({@code --simulate-dir})
   * @param withNvml whether to install the NVML double; false when the operator chose a library
   */
  public static SimulatedNode create(
      Map<String, String> env, int gpus, Path parent, boolean withNvml) {
    return create(env, gpus, MigLayout.NONE, parent, withNvml);
  }

  /**
   * As {@link #create(Map, int, Path, boolean)}, with the GPUs {@code mig} names in MIG mode.
   *
   * @throws IllegalArgumentException if {@code mig} names a GPU the node does not have
   */
  public static SimulatedNode create(
      Map<String, String> env, int gpus, MigLayout mig, Path parent, boolean withNvml) {
    for (int gpu : mig.profiles().keySet()) {
      if (gpu >= gpus) {
        throw new IllegalArgumentException(
            "--simulate-mig names GPU " + gpu + " but the simulated node has " + gpus);
      }
    }
    try {
      Path root = newDirectory(parent, "acceld-simulate-");
      FixtureNode node = Fixtures.node(root.resolve("node"), gpus, mig);
      // The simulated node's kubelet directories, which a real node's kubelet creates; the agent
      // waits for them rather than creating them.
      Files.createDirectories(root.resolve("kubelet/device-plugins"));
      Files.createDirectories(root.resolve("kubelet/plugins_registry"));
      // Node Feature Discovery's features directory, so the simulated node's labels can be read.
      Files.createDirectories(root.resolve(FEATURES_DIR));
      // The double is loaded as code: it goes to the JVM's temporary directory, since a tmpfs such
      // as a container's /dev/shm is often mounted noexec.
      Optional<Path> built = withNvml ? locateDouble(env) : Optional.empty();
      Optional<Path> nvmlRoot =
          built.isPresent()
              ? Optional.of(ownerOnlyDirectory(javaTmpdir(), "acceld-simulate-"))
              : Optional.empty();
      Optional<Path> library =
          built.map(lib -> installDouble(lib, nvmlRoot.orElseThrow().resolve("nvml"), node));
      library.ifPresent(
          lib ->
              log.info(
                  "Simulated node in {}; inject NVML faults with: echo 'xid 3 79' >> {}",
                  root,
                  lib.resolveSibling(CONTROL_FILE)));
      if (withNvml && library.isEmpty()) {
        log.warn(
            "The NVML test double was not found (build it with ./mvnw package, or set {}); simulating"
                + " without NVML",
            NATIVE_PROBES_ENV);
      }
      return new SimulatedNode(root, nvmlRoot, node, library);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the simulated node", e);
    }
  }

  /**
   * The settings simulate mode replaces: the roots, the kubelet's directories, the NVML library.
   */
  public Map<Setting<?>, Object> settings() {
    Map<Setting<?>, Object> s = new LinkedHashMap<>();
    s.put(Settings.SYSFS_ROOT, node.tree().sysfsRoot());
    s.put(Settings.DEV_ROOT, node.tree().devRoot());
    s.put(Settings.PROC_ROOT, node.tree().procRoot());
    s.put(Settings.NVML_LIBRARY, nvmlLibrary.map(Path::toString).orElse("none"));
    // The kubelet's directories are roots too: a simulated agent must not touch the real ones.
    s.put(Settings.DEVICE_PLUGIN_DIR, root.resolve("kubelet/device-plugins"));
    s.put(Settings.PLUGINS_REGISTRY_DIR, root.resolve("kubelet/plugins_registry"));
    s.put(Settings.CDI_DIR, root.resolve("cdi"));
    s.put(Settings.STATE_DIR, root.resolve("state"));
    s.put(Settings.POD_RESOURCES_SOCKET, root.resolve("kubelet/pod-resources/kubelet.sock"));
    s.put(Settings.NODE_LABELS_FILE, Optional.of(root.resolve(FEATURES_DIR).resolve("acceld")));
    return s;
  }

  /** {@code $ACCELD_NATIVE_PROBES/libnvidia-ml.so.1} if it exists, else the one beside the jar. */
  private static Optional<Path> locateDouble(Map<String, String> env) {
    Optional<Path> configured =
        Optional.ofNullable(env.get(NATIVE_PROBES_ENV))
            .filter(s -> !s.isBlank())
            .map(s -> Path.of(s).resolve(DOUBLE_FILE))
            .filter(Files::isRegularFile);
    return configured.or(SimulatedNode::besideJar);
  }

  /**
   * {@code target/native-probes/} next to {@code target/acceld.jar}, as the build lays them out.
   */
  private static Optional<Path> besideJar() {
    try {
      Path code =
          Path.of(SimulatedNode.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path candidate = code.getParent().resolve("native-probes").resolve(DOUBLE_FILE);
      return Files.isRegularFile(candidate) ? Optional.of(candidate) : Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  private static Path installDouble(Path built, Path dir, FixtureNode node) {
    try {
      Files.createDirectories(dir);
      Path copy = dir.resolve(DOUBLE_FILE);
      Files.copy(built, copy, StandardCopyOption.REPLACE_EXISTING);
      node.nvmlScenario().writeTo(dir);
      // Created empty now, not by the first write: the README's `echo ... >> .../nvml-control`
      // goes through a shell glob, which matches only a file that exists. Owner-only, as the
      // double obeys whatever is written to it.
      Files.createFile(
          dir.resolve(CONTROL_FILE),
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot install the NVML double", e);
    }
  }

  @Override
  public void close() {
    delete(root);
    nvmlRoot.ifPresent(SimulatedNode::delete);
  }

  private static void delete(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      log.debug("Could not delete {}: {}", dir, e.toString());
    }
  }
}
