package io.acceld.discovery;

import io.acceld.inventory.PciAddresses;
import io.acceld.util.RateLimitedLog;
import java.io.IOException;
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
    Map<String, PciDevice> byAddress = new TreeMap<>();
    for (Path entry : entries) {
      try {
        if (!seenDirs.add(entry.toRealPath())) {
          log.debug("Ignoring {}: another name for a device already read", entry);
          continue;
        }
      } catch (IOException e) {
        // read() reports it
      }
      read(entry).ifPresent(d -> byAddress.putIfAbsent(d.address(), d));
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
      Path dir = read.file().getParent();
      String device =
          dir == null
              ? "?"
              : PciAddresses.normalise(dir.getFileName().toString())
                  .orElse(dir.getFileName().toString());
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
    return read(sysfsRoot.resolve("bus/pci/devices").resolve(address));
  }

  private Optional<PciDevice> read(Path entry) {
    String name = entry.getFileName().toString();
    Optional<String> address = PciAddresses.normalise(name);
    if (address.isEmpty()) {
      log.debug("Ignoring {}: not a PCI address", entry);
      return Optional.empty();
    }
    try {
      Path dir = entry.toRealPath();
      PciDevice device = reads.run(name, files -> read(files, dir, address.get()));
      for (Path file : reads.wedged()) {
        if (file.startsWith(dir)) {
          blocked.warn(
              "PCI device {}: reading {} blocks (a wedged driver attribute?); it reads as unknown"
                  + " until it answers",
              name,
              file);
        }
      }
      return Optional.of(device);
    } catch (NoSuchFileException e) {
      log.warn("Skipping PCI device {}: {} is missing", name, e.getFile());
    } catch (DeadlineReads.Blocked e) {
      blocked.warn("Skipping PCI device {}: {}", name, e.getMessage());
    } catch (IOException | RuntimeException e) {
      log.warn("Skipping PCI device {}: {}", name, e.toString());
    }
    return Optional.empty();
  }

  private PciDevice read(SysfsFiles files, Path dir, String address) throws IOException {
    int vendor = files.hex(dir.resolve("vendor"));
    return new PciDevice(
        address,
        vendor,
        files.hex(dir.resolve("device")),
        files.hex(dir.resolve("class")),
        files.optionalHex(dir.resolve("subsystem_vendor")).orElse(0),
        files.optionalHex(dir.resolve("subsystem_device")).orElse(0),
        numaNode(files, dir, address),
        files.optionalString(dir.resolve("local_cpulist")).orElse(""),
        linkTargetName(dir.resolve("driver")),
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
        fabricPath(dir, address),
        vendor == DeviceClassifier.VENDOR_AMD
            ? AmdgpuAttributes.read(files, dir)
            : AmdgpuAttributes.NONE);
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

  private List<String> fabricPath(Path realDir, String address) {
    try {
      Path devices = sysfsRoot.resolve("devices").toRealPath();
      if (realDir.startsWith(devices)) {
        List<String> parts = new ArrayList<>();
        devices.relativize(realDir).forEach(p -> parts.add(p.toString()));
        return parts;
      }
    } catch (IOException e) {
      // fall through: no hierarchy known
    }
    return List.of(address);
  }
}
