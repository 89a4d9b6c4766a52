package io.acceld.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The samples of a Prometheus text scrape, parsed, so tests assert on series and values rather than
 * on string fragments that depend on label order or number formatting.
 */
record Exposition(List<Exposition.Sample> samples, String text) {

  record Sample(String name, Map<String, String> labels, double value) {}

  static Exposition parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      samples.add(sample(line));
    }
    return new Exposition(List.copyOf(samples), text);
  }

  /** All samples of one series name (with its suffix, e.g. {@code foo_total}). */
  List<Sample> series(String name) {
    return samples.stream().filter(s -> s.name().equals(name)).toList();
  }

  /** The one sample of {@code name} whose labels include all of {@code labels} (name, value...). */
  Optional<Double> value(String name, String... labels) {
    List<Sample> matching = series(name).stream().filter(s -> hasLabels(s, labels)).toList();
    if (matching.size() > 1) {
      throw new AssertionError("several " + name + " samples match: " + matching);
    }
    return matching.stream().findFirst().map(Sample::value);
  }

  private static boolean hasLabels(Sample s, String... labels) {
    for (int i = 0; i < labels.length; i += 2) {
      if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
        return false;
      }
    }
    return true;
  }

  private static Sample sample(String line) {
    int brace = line.indexOf('{');
    int space = line.lastIndexOf(' ');
    Map<String, String> labels = new LinkedHashMap<>();
    String name;
    if (brace >= 0 && brace < space) {
      name = line.substring(0, brace);
      int i = brace + 1;
      while (line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        String key = line.substring(i, eq);
        StringBuilder value = new StringBuilder();
        int j = eq + 2; // skip ="
        while (line.charAt(j) != '"') {
          char c = line.charAt(j);
          if (c == '\\') {
            char n = line.charAt(++j);
            value.append(n == 'n' ? '\n' : n);
          } else {
            value.append(c);
          }
          j++;
        }
        labels.put(key, value.toString());
        i = j + 1;
        if (line.charAt(i) == ',') {
          i++;
        }
      }
    } else {
      name = line.substring(0, space);
    }
    String value = line.substring(space + 1);
    return new Sample(name, labels, Double.parseDouble(value.replace("+Inf", "Infinity")));
  }
}
