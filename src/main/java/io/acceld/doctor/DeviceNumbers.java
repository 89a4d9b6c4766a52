package io.acceld.doctor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The device number each node the agent hands out should carry. Majors come from the character
 * devices of {@code <proc-root>/devices}, where each driver registers its own (NVIDIA's 195 is
 * fixed; {@code nvidia-uvm}'s, {@code nvidia-caps}' and {@code kfd}'s are assigned at load time);
 * minors follow from the node's name, as the drivers number them.
 */
final class DeviceNumbers {
  /** What a node should be: a driver's major (by its names in /proc/devices) and maybe a minor. */
  record Expected(List<String> drivers, OptionalInt minor) {}

  private record Rule(Pattern name, List<String> drivers, Function<Matcher, OptionalInt> minor) {}

  private static final List<String> NVIDIA = List.of("nvidia", "nvidia-frontend");

  private static final List<Rule> RULES =
      List.of(
          rule("nvidia([0-9]+)", NVIDIA, m -> number(m.group(1))),
          rule("nvidiactl", NVIDIA, m -> OptionalInt.of(255)),
          rule("nvidia-modeset", NVIDIA, m -> OptionalInt.of(254)),
          rule("nvidia-uvm", List.of("nvidia-uvm"), m -> OptionalInt.of(0)),
          rule("nvidia-uvm-tools", List.of("nvidia-uvm"), m -> OptionalInt.of(1)),
          rule("nvidia-caps/nvidia-cap([0-9]+)", List.of("nvidia-caps"), m -> number(m.group(1))),
          rule("dri/(?:card|renderD|controlD)([0-9]+)", List.of("drm"), m -> number(m.group(1))),
          rule("kfd", List.of("kfd"), m -> OptionalInt.of(0)),
          rule("accel/accel([0-9]+)", List.of("accel"), m -> number(m.group(1))),
          rule("vfio/vfio", List.of("misc"), m -> OptionalInt.of(196)),
          rule("vfio/[0-9]+", List.of("vfio"), m -> OptionalInt.empty()));

  private final Path procDevices;
  private final Map<String, Integer> majors;

  private DeviceNumbers(Path procDevices, Map<String, Integer> majors) {
    this.procDevices = procDevices;
    this.majors = Map.copyOf(majors);
  }

  /** Reads {@code <procRoot>/devices}; an unreadable file leaves every major unknown. */
  static DeviceNumbers read(Path procRoot) {
    Path file = procRoot.resolve("devices");
    try {
      return new DeviceNumbers(file, parse(Files.readString(file, StandardCharsets.US_ASCII)));
    } catch (IOException e) {
      return new DeviceNumbers(file, Map.of());
    }
  }

  /** The character devices section: {@code 195 nvidia} lines up to {@code Block devices:}. */
  static Map<String, Integer> parse(String content) {
    Map<String, Integer> majors = new HashMap<>();
    boolean character = false;
    for (String line : content.split("\n")) {
      String l = line.strip();
      if (l.endsWith("devices:")) {
        character = l.startsWith("Character");
        continue;
      }
      String[] parts = l.split("\\s+");
      if (character && parts.length == 2 && parts[0].matches("[0-9]+")) {
        majors.putIfAbsent(parts[1], Integer.parseInt(parts[0]));
      }
    }
    return majors;
  }

  Path file() {
    return procDevices;
  }

  /** What {@code relative} (such as {@code nvidia0}) should be; empty for a name with no rule. */
  Optional<Expected> expected(String relative) {
    for (Rule r : RULES) {
      Matcher m = r.name().matcher(relative);
      if (m.matches()) {
        return Optional.of(new Expected(r.drivers(), r.minor().apply(m)));
      }
    }
    return Optional.empty();
  }

  /** The major the first of {@code drivers} that /proc/devices lists has. */
  OptionalInt major(List<String> drivers) {
    for (String d : drivers) {
      Integer major = majors.get(d);
      if (major != null) {
        return OptionalInt.of(major);
      }
    }
    return OptionalInt.empty();
  }

  private static Rule rule(String name, List<String> drivers, Function<Matcher, OptionalInt> f) {
    return new Rule(Pattern.compile(name), drivers, f);
  }

  private static OptionalInt number(String digits) {
    try {
      return OptionalInt.of(Integer.parseInt(digits));
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }
}
