package io.acceld.mesos.scheduler;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@code --mesos-reserve} keeps back from offers for the node itself: {@code
 * cpus:1;mem:1024;disk:0} (memory and disk in MB, as Mesos counts them).
 */
final class Reserve {
  static final Set<String> NAMES = Set.of("cpus", "mem", "disk");

  private Reserve() {}

  /**
   * Parses the flag's value.
   *
   * @throws IllegalArgumentException naming the part that is wrong
   */
  static Quantities parse(String spec) {
    Map<String, Double> amounts = new TreeMap<>();
    if (spec == null || spec.isBlank()) {
      return Quantities.NONE;
    }
    for (String part : spec.split(";", -1)) {
      String item = part.trim();
      if (item.isEmpty()) {
        continue;
      }
      int colon = item.indexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException(
            "--mesos-reserve: '" + item + "' must be name:amount, like cpus:1;mem:1024;disk:0");
      }
      String name = item.substring(0, colon).trim();
      String value = item.substring(colon + 1).trim();
      if (!NAMES.contains(name)) {
        throw new IllegalArgumentException(
            "--mesos-reserve: unknown resource '" + name + "'; use cpus, mem (MB) or disk (MB)");
      }
      double amount;
      try {
        amount = Double.parseDouble(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--mesos-reserve: the amount of " + name + " is not a number: '" + value + "'");
      }
      if (!(amount >= 0) || Double.isInfinite(amount)) {
        throw new IllegalArgumentException(
            "--mesos-reserve: the amount of "
                + name
                + " must be a finite number >= 0, got "
                + value);
      }
      if (amounts.put(name, amount) != null) {
        throw new IllegalArgumentException("--mesos-reserve: " + name + " is given twice");
      }
    }
    return new Quantities(amounts);
  }
}
