package io.acceld.discovery;

import io.acceld.inventory.PciAddresses;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
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

  public SysfsPciScanner(Path sysfsRoot) {
    this.sysfsRoot = sysfsRoot;
  }

  /** All readable PCI functions, in address order. Empty if the bus directory is missing. */
  public List<PciDevice> scan() {
    Path bus = sysfsRoot.resolve("bus/pci/devices");
    if (!Files.isDirectory(bus)) {
      log.warn("No PCI bus directory at {}: is --sysfs-root right?", bus);
      return List.of();
    }
    List<PciDevice> found = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(bus)) {
      for (Path entry : entries) {
        read(entry).ifPresent(found::add);
      }
    } catch (IOException e) {
      log.warn("Cannot list {}: {}", bus, e.toString());
    }
    found.sort(Comparator.comparing(PciDevice::address));
    return found;
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
      return Optional.of(
          new PciDevice(
              address.get(),
              SysfsFiles.hex(dir.resolve("vendor")),
              SysfsFiles.hex(dir.resolve("device")),
              SysfsFiles.hex(dir.resolve("class")),
              SysfsFiles.optionalHex(dir.resolve("subsystem_vendor")).orElse(0),
              SysfsFiles.optionalHex(dir.resolve("subsystem_device")).orElse(0),
              SysfsFiles.optionalInt(dir.resolve("numa_node")).orElse(-1),
              SysfsFiles.optionalString(dir.resolve("local_cpulist")).orElse(""),
              linkTargetName(dir.resolve("driver")),
              linkTargetName(dir.resolve("iommu_group"))
                  .map(SysfsPciScanner::parseIntOrNull)
                  .stream()
                  .mapToInt(Integer::intValue)
                  .findFirst(),
              SysfsFiles.optionalString(dir.resolve("current_link_speed"))
                  .flatMap(SysfsPciScanner::parseLinkSpeed),
              SysfsFiles.optionalInt(dir.resolve("current_link_width"))
                  .map(OptionalInt::of)
                  .orElse(OptionalInt.empty()),
              children(dir.resolve("drm"), DRM_NODE),
              children(dir.resolve("accel"), ACCEL_NODE),
              SysfsFiles.optionalString(dir.resolve("product_name")).filter(s -> !s.isBlank()),
              fabricPath(dir, address.get())));
    } catch (NoSuchFileException e) {
      log.warn("Skipping PCI device {}: {} is missing", name, e.getFile());
    } catch (IOException | RuntimeException e) {
      log.warn("Skipping PCI device {}: {}", name, e.toString());
    }
    return Optional.empty();
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
