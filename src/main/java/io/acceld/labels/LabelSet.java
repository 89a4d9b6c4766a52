package io.acceld.labels;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The node's labels, in the order they are written, and the labels that were left out because NFD
 * would refuse them.
 *
 * @param labels key to value, every one valid by {@link LabelRules}
 * @param rejected what was computed but left out, and why
 */
public record LabelSet(Map<String, String> labels, List<Rejected> rejected) {
  public static final LabelSet EMPTY = new LabelSet(Map.of(), List.of());

  /** A label left out. */
  public record Rejected(String key, String value, String reason) {}

  public LabelSet {
    labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
    rejected = List.copyOf(rejected);
  }
}
