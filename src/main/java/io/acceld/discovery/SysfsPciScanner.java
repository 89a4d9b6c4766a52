package io.acceld.discovery;

import io.acceld.inventory.PciAddresses;
import io.acceld.util.RateLimitedLog;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every PCI function under {@code <sysfs-root>/bus/pci/devices}. A device whose attributes
 * cannot be read is skipped with a warning: one broken device never hides the others.
 */
public final class SysfsPciScanner {
  private static final Logger log = LoggerFactory.getLogger(SysfsPciScanner.class);
  private static final Pattern DRM_NODE = Pattern.compile("^(card|renderD)[0-9]+$");
  private static final Pattern ACCEL_NODE = Pattern.compile("^accel[0-9]+$");

  private final Path sysfsRoot;
  private final DeadlineReads reads;
  private final RateLimitedLog blocked = new RateLimitedLog(log, Duration.ofMinutes(10));

  public SysfsPciScanner(Path sysfsRoot) {
    this(sysfsRoot, DeadlineReads.DEFAULT_DEADLINE);
  }

  /**
   * @param deadline how long one device's attribute reads may block before it is given up
   */
  SysfsPciScanner(Path sysfsRoot, Duration deadline) {
    this.sysfsRoot = sysfsRoot;
    this.reads = new DeadlineReads(deadline);
  }

  /** All readable PCI functions, in address order. Empty if the bus directory is missing. */
  public List<PciDevice> scan() {
    return scan(identity -> true);
  }

  /**
   * The readable PCI functions whose identity {@code wanted} accepts, in address order: the others
   * cost only the reads of their identity. Empty if the bus directory is missing.
   */
  public List<PciDevice> scan(Predicate<PciIdentity> wanted) {
    Path bus = sysfsRoot.resolve("bus/pci/devices");
    if (!Files.isDirectory(bus)) {
      log.warn("No PCI bus directory at {}: is --sysfs-root right?", bus);
      return List.of();
    }
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> listing = Files.newDirectoryStream(bus)) {
      listing.forEach(entries::add);
    } catch (IOException e) {
      log.warn("Cannot list {}: {}", bus, e.toString());
    }
    entries.sort(Comparator.comparing(Path::toString));
    // An alias link (another name for the same device directory) must not list a device twice.
    Set<Path> seenDirs = new HashSet<>();
    List<Entry> todo = new ArrayList<>();
    for (Path entry : entries) {
      entry(entry, seenDirs).ifPresent(todo::add);
    }
    Map<String, PciDevice> byAddress = new TreeMap<>();
    for (PciDevice d : read(todo, wanted, devicesDir())) {
      byAddress.putIfAbsent(d.address(), d);
    }
    return List.copyOf(byAddress.values());
  }

  /**
   * What {@code /healthz} reports while attribute reads block: {@code reading <file> for <BDF>
   * timed out since <time>}, one line per file, until its read returns. The device's other reads go
   * on (a blocked optional attribute reads as unknown; a blocked required one leaves the device
   * out), so the agent serves, but an operator must look at the driver.
   */
  public List<String> blockedReads() {
    List<String> lines = new ArrayList<>();
    for (DeadlineReads.BlockedRead read : reads.blocked()) {
      String device =
          deviceDir(read.file())
              .flatMap(dir -> PciAddresses.normalise(dir.getFileName().toString()))
              .orElse("?");
      lines.add(
          "reading "
              + read.file()
              + " for "
              + device
              + " timed out since "
              + read.since().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    }
    return lines;
  }

  /** One device by address, if present and readable. */
  public Optional<PciDevice> scan(String address) {
    return entry(sysfsRoot.resolve("bus/pci/devices").resolve(address), new HashSet<>())
        .flatMap(e -> read(List.of(e), identity -> true, devicesDir()).stream().findFirst());
  }

  /** {@code <sysfs-root>/devices} as a real path, under which a device's bridge chain shows. */
  private Optional<Path> devicesDir() {
    try {
      return Optional.of(sysfsRoot.resolve("devices").toRealPath());
    } catch (IOException e) {
      return Optional.empty(); // no hierarchy known
    }
  }

  /**
   * The device directory an attribute file belongs to: its nearest ancestor named for a PCI
   * address. Not any ancestor: in sysfs a device's directory sits inside its bridge's.
   */
  private static Optional<Path> deviceDir(Path file) {
    for (Path dir = file.getParent(); dir != null; dir = dir.getParent()) {
      Path name = dir.getFileName();
      if (name != null && PciAddresses.normalise(name.toString()).isPresent()) {
        return Optional.of(dir);
      }
    }
    return Optional.empty();
  }

  /** A bus entry to read: its name there, its normalised address and its real directory. */
  private record Entry(String name, String address, Path dir) {}

  /** The entry to read, if it names a PCI address whose directory no other name had. */
  private Optional<Entry> entry(Path entry, Set<Path> seenDirs) {
    String name = entry.getFileName().toString();
    Optional<String> address = PciAddresses.normalise(name);
    if (address.isEmpty()) {
      log.debug("Ignoring {}: not a PCI address", entry);
      return Optional.empty();
    }
    Path dir;
    try {
      dir = entry.toRealPath();
    } catch (NoSuchFileException e) {
      log.warn("Skipping PCI device {}: {} is missing", name, e.getFile());
      return Optional.empty();
    } catch (IOException e) {
      log.warn("Skipping PCI device {}: {}", name, e.toString());
      return Optional.empty();
    }
    if (!seenDirs.add(dir)) {
      log.debug("Ignoring {}: another name for a device already read", entry);
      return Optional.empty();
    }
    return Optional.of(new Entry(name, address.get(), dir));
  }

  /**
   * Reads the entries on the reader thread, in one hand-off for all of them; each device's reads
   * get the deadline ({@link DeadlineReads#runEach}). A device that cannot be read is reported and
   * left out; the others are read.
   */
  private List<PciDevice> read(
      List<Entry> todo, Predicate<PciIdentity> wanted, Optional<Path> devices) {
    List<DeadlineReads.Outcome<Optional<PciDevice>>> outcomes;
    try {
      outcomes =
          reads.runEach(
              todo, Entry::name, (e, files) -> read(files, e.dir(), e.address(), wanted, devices));
    } catch (InterruptedIOException e) {
      log.debug("PCI scan interrupted: {}", e.getMessage()); // the agent is stopping
      return List.of();
    }
    List<PciDevice> found = new ArrayList<>();
    for (int i = 0; i < todo.size(); i++) {
      Entry e = todo.get(i);
      DeadlineReads.Outcome<Optional<PciDevice>> outcome = outcomes.get(i);
      if (outcome.error() == null) {
        warnWedged(e);
        outcome.value().ifPresent(found::add);
      } else if (outcome.error() instanceof NoSuchFileException missing) {
        log.warn("Skipping PCI device {}: {} is missing", e.name(), missing.getFile());
      } else if (outcome.error() instanceof DeadlineReads.Blocked b) {
        blocked.warn("Skipping PCI device {}: {}", e.name(), b.getMessage());
      } else {
        log.warn("Skipping PCI device {}: {}", e.name(), outcome.error().toString());
      }
    }
    return found;
  }

  private void warnWedged(Entry e) {
    for (Path file : reads.wedged()) {
      if (deviceDir(file).filter(e.dir()::equals).isPresent()) {
        blocked.warn(
            "PCI device {}: reading {} blocks (a wedged driver attribute?); it reads as unknown"
                + " until it answers",
            e.name(),
            file);
      }
    }
  }

  private Optional<PciDevice> read(
      SysfsFiles files,
      Path dir,
      String address,
      Predicate<PciIdentity> wanted,
      Optional<Path> devices)
      throws IOException {
    PciIdentity id =
        new PciIdentity(
            files.hex(dir.resolve("vendor")),
            files.hex(dir.resolve("device")),
            files.hex(dir.resolve("class")),
            linkTargetName(dir.resolve("driver")));
    if (!wanted.test(id)) {
      return Optional.empty();
    }
    int vendor = id.vendor();
    return Optional.of(
        new PciDevice(
            address,
            vendor,
            id.device(),
            id.classCode(),
            files.optionalHex(dir.resolve("subsystem_vendor")).orElse(0),
            files.optionalHex(dir.resolve("subsystem_device")).orElse(0),
            numaNode(files, dir, address),
            files.optionalString(dir.resolve("local_cpulist")).orElse(""),
            id.driver(),
            linkTargetName(dir.resolve("iommu_group")).map(SysfsPciScanner::parseIntOrNull).stream()
                .mapToInt(Integer::intValue)
                .findFirst(),
            files
                .optionalString(dir.resolve("current_link_speed"))
                .flatMap(SysfsPciScanner::parseLinkSpeed),
            files
                .optionalInt(dir.resolve("current_link_width"))
                .map(OptionalInt::of)
                .orElse(OptionalInt.empty()),
            children(dir.resolve("drm"), DRM_NODE),
            children(dir.resolve("accel"), ACCEL_NODE),
            files.optionalString(dir.resolve("product_name")).filter(s -> !s.isBlank()),
            fabricPath(devices, dir, address),
            vendor == DeviceClassifier.VENDOR_AMD
                ? AmdgpuAttributes.read(files, dir)
                : AmdgpuAttributes.NONE));
  }

  /** The device's NUMA node; only -1 means unknown, so any other negative value is reported. */
  private int numaNode(SysfsFiles files, Path dir, String address) {
    int numa = files.optionalInt(dir.resolve("numa_node")).orElse(-1);
    if (numa < -1) {
      blocked.warn(
          "PCI device {}: numa_node holds {}, not a NUMA node; NUMA unknown", address, numa);
      return -1;
    }
    return numa;
  }

  private static Integer parseIntOrNull(String s) {
    try {
      return Integer.valueOf(s);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Optional<String> linkTargetName(Path link) {
    try {
      if (!Files.isSymbolicLink(link)) {
        return Optional.empty();
      }
      return Optional.of(Files.readSymbolicLink(link).getFileName().toString());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Accepts {@code 16.0 GT/s PCIe}, {@code 8 GT/s}; {@code Unknown} gives empty. */
  static Optional<Double> parseLinkSpeed(String raw) {
    String[] words = raw.strip().split("\\s+");
    try {
      return words.length == 0 ? Optional.empty() : Optional.of(Double.parseDouble(words[0]));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static List<String> children(Path dir, Pattern pattern) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(dir)) {
      return list.map(p -> p.getFileName().toString())
          .filter(n -> pattern.matcher(n).matches())
          .sorted()
          .toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private static List<String> fabricPath(Optional<Path> devices, Path realDir, String address) {
    if (devices.isPresent() && realDir.startsWith(devices.get())) {
      List<String> parts = new ArrayList<>();
      devices.get().relativize(realDir).forEach(p -> parts.add(p.toString()));
      return parts;
    }
    return List.of(address);
  }
}
