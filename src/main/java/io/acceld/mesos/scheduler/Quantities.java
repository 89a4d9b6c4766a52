package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.Value;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Amounts of scalar resources by name ({@code cpus}, {@code mem} in MB, {@code gpus}, {@code
 * amd.com/gpu}, ...). Immutable. Arithmetic keeps Mesos's three decimal digits, so that 0.1 + 0.2
 * fits in 0.3 as it does in Mesos.
 */
record Quantities(Map<String, Double> amounts) {
  static final Quantities NONE = new Quantities(Map.of());

  public Quantities {
    TreeMap<String, Double> kept = new TreeMap<>();
    amounts.forEach(
        (name, v) -> {
          double rounded = round(v);
          if (rounded != 0) {
            kept.put(name, rounded);
          }
        });
    amounts = Collections.unmodifiableMap(kept);
  }

  static Quantities of(String name, double amount) {
    return new Quantities(Map.of(name, amount));
  }

  /** The SCALAR resources among {@code resources}, summed by name; other types are ignored. */
  static Quantities ofScalars(Collection<Resource> resources) {
    TreeMap<String, Double> sum = new TreeMap<>();
    for (Resource r : resources) {
      if (r.getType() == Value.Type.SCALAR) {
        sum.merge(r.getName(), r.getScalar().getValue(), Double::sum);
      }
    }
    return new Quantities(sum);
  }

  double get(String name) {
    return amounts.getOrDefault(name, 0.0);
  }

  boolean isEmpty() {
    return amounts.isEmpty();
  }

  Quantities plus(Quantities other) {
    TreeMap<String, Double> sum = new TreeMap<>(amounts);
    other.amounts.forEach((k, v) -> sum.merge(k, v, Double::sum));
    return new Quantities(sum);
  }

  /** This minus {@code other}, never below zero. */
  Quantities minus(Quantities other) {
    TreeMap<String, Double> rest = new TreeMap<>(amounts);
    other.amounts.forEach((k, v) -> rest.computeIfPresent(k, (n, have) -> Math.max(0, have - v)));
    return new Quantities(rest);
  }

  /** Whether every amount here is at most that of {@code other}. */
  boolean fitsIn(Quantities other) {
    for (Map.Entry<String, Double> e : amounts.entrySet()) {
      if (round(e.getValue() - other.get(e.getKey())) > 0) {
        return false;
      }
    }
    return true;
  }

  static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    amounts.forEach(
        (k, v) -> {
          if (s.length() > 0) {
            s.append("; ");
          }
          s.append(k).append(':').append(v % 1 == 0 ? String.valueOf(v.longValue()) : v);
        });
    return s.length() == 0 ? "{}" : s.toString();
  }
}
