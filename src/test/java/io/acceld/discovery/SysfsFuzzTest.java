package io.acceld.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.simulate.FixtureNode;
import io.acceld.simulate.FixtureVariants;
import io.acceld.testing.Waits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random contents in the sysfs attribute files of one device at a time, on the mixed fixture node
 * (NVIDIA, AMD, a NIC and bridges as real file trees): garbage, non-ASCII bytes, empty files,
 * enormous or negative numbers, long lines, a directory or a dangling link where a file was. A scan
 * must never throw, and every other device must come out exactly as before: a fault in one device's
 * data affects that device only. Seeded; each round restores the tree.
 */
class SysfsFuzzTest {
  private static final long SEED = 0x73797366L;
  private static final int ROUNDS = 300;

  @TempDir Path root;

  @Test
  void corruptAttributesOfOneDeviceNeverBreakTheScanOrTouchTheOthers() {
    FixtureNode node = FixtureVariants.mixedNode(root);
    Path sysfs = node.tree().sysfsRoot();
    InventoryScanner scanner =
        new InventoryScanner(
            sysfs,
            node.tree().devRoot(),
            node.tree().procRoot(),
            new DeviceClassifier(List.of()),
            NvidiaSource.NONE);
    Map<String, Device> before = byAddress(scanner.scan());
    assertThat(before).isNotEmpty();
    Random random = new Random(SEED);
    assertTimeoutPreemptively(
        Waits.scaled(Duration.ofSeconds(30)),
        () -> {
          List<Path> devices;
          try (Stream<Path> listed = Files.list(sysfs.resolve("bus/pci/devices"))) {
            devices = listed.sorted().toList();
          }
          for (int round = 0; round < ROUNDS; round++) {
            Path victim = devices.get(random.nextInt(devices.size()));
            Path dir = victim.toRealPath();
            List<Path> attributes;
            try (Stream<Path> listed = Files.list(dir)) {
              attributes =
                  listed
                      .filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                      .sorted()
                      .toList();
            }
            List<Restore> restores = new ArrayList<>();
            List<Path> chosen = new ArrayList<>(attributes);
            java.util.Collections.shuffle(chosen, random);
            for (Path attribute :
                chosen.subList(0, Math.min(chosen.size(), 1 + random.nextInt(3)))) {
              restores.add(corrupt(attribute, random));
            }
            String address = victim.getFileName().toString();
            try {
              new SysfsPciScanner(sysfs).scan();
              Map<String, Device> after = byAddress(scanner.scan());
              for (Map.Entry<String, Device> other : before.entrySet()) {
                if (!other.getKey().equals(address)) {
                  assertThat(after.get(other.getKey()))
                      .as(
                          "round %d: %s corrupted, %s must be untouched",
                          round, restores, other.getKey())
                      .isEqualTo(other.getValue());
                }
              }
            } catch (RuntimeException e) {
              throw new AssertionError("round " + round + ": " + restores + " escaped the scan", e);
            } finally {
              for (int r = restores.size() - 1; r >= 0; r--) {
                restores.get(r).undo();
              }
            }
          }
          assertThat(byAddress(scanner.scan()))
              .as("the restored tree scans as before")
              .isEqualTo(before);
        });
  }

  /** How to put an attribute file back as it was. */
  private record Restore(Path file, byte[] original, String what) {
    void undo() throws IOException {
      if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
        Files.delete(file);
      } else {
        Files.deleteIfExists(file);
      }
      Files.write(file, original);
    }

    @Override
    public String toString() {
      return file.getFileName() + " " + what;
    }
  }

  private static Restore corrupt(Path file, Random random) throws IOException {
    byte[] original = Files.readAllBytes(file);
    String what;
    Files.delete(file);
    switch (random.nextInt(10)) {
      case 0 -> {
        Files.createDirectory(file);
        what = "as a directory";
      }
      case 1 -> {
        Files.createSymbolicLink(file, file.resolveSibling("nowhere"));
        what = "as a dangling link";
      }
      case 2 -> {
        byte[] bytes = new byte[random.nextInt(64)];
        random.nextBytes(bytes);
        Files.write(file, bytes);
        what = "as " + bytes.length + " random bytes";
      }
      default -> {
        String text =
            switch (random.nextInt(8)) {
              case 0 -> "";
              case 1 -> "\n";
              case 2 -> "-5\n";
              case 3 -> "99999999999999999999999\n";
              case 4 -> "0x" + "f".repeat(40) + "\n";
              case 5 -> "1-2,3-\n";
              case 6 -> "x".repeat(10_000);
              default -> "0x10de\n0x10de\n";
            };
        Files.writeString(file, text);
        what = "as '" + (text.length() > 20 ? text.substring(0, 20) + "..." : text.strip()) + "'";
      }
    }
    return new Restore(file, original, what);
  }

  private static Map<String, Device> byAddress(Inventory inventory) {
    return inventory.devices().stream()
        .collect(Collectors.toMap(Device::pciAddress, Function.identity(), (a, b) -> a));
  }
}
