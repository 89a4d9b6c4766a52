package io.acceld.labels;

import java.util.Map;

/**
 * One job of node labelling: the keys one upstream tool writes (GPU Feature Discovery, AMD's node
 * labeller) or acceld's own. Jobs write disjoint keys; {@link NodeLabels} runs them in a fixed
 * order and checks what they give.
 */
sealed interface Labeller permits AcceldLabeller, NvidiaLabeller, AmdLabeller, VendorLabeller {
  /** The job's labels for the node, in the order they are written; empty when it has nothing. */
  Map<String, String> labels(LabelInputs inputs);
}
