package io.acceld.mesos.containment;

import java.util.List;

/**
 * Whether containment as configured can work on this node.
 *
 * @param missing each thing that is missing, with the setting that turns its need off
 */
public record Preflight(String isolation, List<String> missing) {
  public Preflight {
    missing = List.copyOf(missing);
  }

  public boolean ok() {
    return missing.isEmpty();
  }

  /** For the operator: what is missing and how to run without it. */
  public String message() {
    return ok()
        ? "Mesos task containment ready (--mesos-isolation " + isolation + ")"
        : "Mesos task containment (--mesos-isolation "
            + isolation
            + ") cannot work on this node: "
            + String.join("; ", missing);
  }
}
