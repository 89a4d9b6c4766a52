package io.acceld.config;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** One isolator of {@code --mesos-isolation}. */
public enum MesosIsolation {
  /** Only the task's own accelerators' device nodes can be opened. */
  DEVICES,
  /** The task's memory is limited to its {@code mem} resource. */
  MEMORY,
  /** The task's cpu share (and, when asked, a CFS quota) follows its {@code cpus} resource. */
  CPU;

  /** {@code --mesos-isolation}'s default. */
  public static final String DEFAULT = "devices,memory,cpu";

  /**
   * Parses {@code --mesos-isolation}: a comma-separated list of {@code devices}, {@code memory},
   * {@code cpu}, or {@code none} alone.
   *
   * @throws IllegalArgumentException naming the item that is not an isolator
   */
  public static Set<MesosIsolation> parse(String list) {
    if (list == null || list.isBlank()) {
      throw new IllegalArgumentException(
          "--mesos-isolation is empty: give a list of devices,memory,cpu or none");
    }
    String trimmed = list.strip();
    if (trimmed.equalsIgnoreCase("none")) {
      return EnumSet.noneOf(MesosIsolation.class);
    }
    EnumSet<MesosIsolation> set = EnumSet.noneOf(MesosIsolation.class);
    for (String item : trimmed.split(",", -1)) {
      String name = item.strip().toLowerCase(Locale.ROOT);
      switch (name) {
        case "devices" -> set.add(DEVICES);
        case "memory" -> set.add(MEMORY);
        case "cpu" -> set.add(CPU);
        case "none" ->
            throw new IllegalArgumentException(
                "--mesos-isolation: none cannot be combined with other isolators, got " + list);
        default ->
            throw new IllegalArgumentException(
                "--mesos-isolation: '"
                    + item.strip()
                    + "' is not an isolator (known: devices, memory, cpu, or none)");
      }
    }
    return set;
  }

  /** The setting's spelling of a set, in declaration order, {@code none} when empty. */
  public static String format(Set<MesosIsolation> set) {
    return set.isEmpty()
        ? "none"
        : set.stream()
            .sorted()
            .map(i -> i.name().toLowerCase(Locale.ROOT))
            .collect(Collectors.joining(","));
  }
}
