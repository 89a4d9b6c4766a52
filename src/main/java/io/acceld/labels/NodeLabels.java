package io.acceld.labels;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node's labels: a pure function of the inventory and the settings in {@link LabelInputs}, kept
 * apart from where they are written. The jobs run in a fixed order (acceld's own first, so that a
 * file cut at NFD's size limit keeps the labels the agent's DaemonSet selects on), and every label
 * is checked against NFD's rules: one it would refuse is left out and reported, never written, so
 * NFD takes the file whole.
 */
public final class NodeLabels {
  private static final List<Labeller> JOBS =
      List.of(new AcceldLabeller(), new NvidiaLabeller(), new AmdLabeller(), new VendorLabeller());

  private NodeLabels() {}

  public static LabelSet of(LabelInputs inputs) {
    Map<String, String> valid = new LinkedHashMap<>();
    List<LabelSet.Rejected> rejected = new ArrayList<>();
    for (Labeller job : JOBS) {
      job.labels(inputs)
          .forEach(
              (key, value) -> {
                Optional<String> problem = LabelRules.problem(key, value);
                if (problem.isPresent()) {
                  rejected.add(new LabelSet.Rejected(key, value, problem.get()));
                } else {
                  valid.put(key, value);
                }
              });
    }
    return new LabelSet(valid, rejected);
  }
}
