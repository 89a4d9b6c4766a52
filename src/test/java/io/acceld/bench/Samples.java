package io.acceld.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The values one figure took over repeated runs of one agent, or why it could not be measured.
 * Reported as the median and the range, since with a handful of runs on a shared machine a mean
 * would be dragged by one slow start.
 */
final class Samples {
  private final List<Double> values = new ArrayList<>();
  private String skipped;

  void add(double value) {
    values.add(value);
  }

  void skip(String reason) {
    skipped = reason;
  }

  boolean isSkipped() {
    return skipped != null;
  }

  String skipReason() {
    return skipped == null ? "" : skipped;
  }

  int count() {
    return values.size();
  }

  double median() {
    List<Double> sorted = sorted();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  double min() {
    return sorted().get(0);
  }

  double max() {
    return sorted().get(values.size() - 1);
  }

  /** "median (min–max)" in the figure's precision, or why there is none. */
  String cell(int decimals) {
    if (values.isEmpty()) {
      return skipped != null ? "skipped: " + skipped : "not measured";
    }
    if (values.size() == 1) {
      return format(median(), decimals);
    }
    return format(median(), decimals)
        + " ("
        + format(min(), decimals)
        + "–"
        + format(max(), decimals)
        + ")";
  }

  static String format(double value, int decimals) {
    return String.format(Locale.ROOT, "%,." + decimals + "f", value);
  }

  private List<Double> sorted() {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted;
  }
}
