package io.acceld.ledger;

/**
 * A side of the agent that hands devices to workloads. A device leased by one side is never leased
 * by another until it is released. Within a side, that side's own book-keeping is authoritative:
 * the kubelet's device manager decides which of its pods gets a device, so a kubelet lease may take
 * over another kubelet lease of the same slot (the pod it named is gone, or not yet known to us).
 */
public enum Publisher {
  KUBELET("kubelet"),
  MESOS("Mesos"),
  DRA("DRA");

  private final String displayName;

  Publisher(String displayName) {
    this.displayName = displayName;
  }

  public String displayName() {
    return displayName;
  }

  /** Whether a lease held by {@code current} may be taken over by a new lease of this side. */
  boolean takesOver(Holder current) {
    return this == KUBELET && current.publisher() == KUBELET;
  }
}
