package io.acceld.ledger;

/** The kinds of {@link Holder}, with the stable names used in metrics and in the checkpoint. */
public enum HolderKind {
  KUBELET_POD("kubelet_pod", Publisher.KUBELET),
  KUBELET_PENDING("kubelet_pending", Publisher.KUBELET),
  MESOS_TASK("mesos_task", Publisher.MESOS),
  DRA_CLAIM("dra_claim", Publisher.DRA);

  private final String label;
  private final Publisher publisher;

  HolderKind(String label, Publisher publisher) {
    this.label = label;
    this.publisher = publisher;
  }

  /** The {@code holder_kind} label value and the checkpoint's name for the kind. */
  public String label() {
    return label;
  }

  public Publisher publisher() {
    return publisher;
  }

  /** The kind named {@code label}, or null. */
  static HolderKind ofLabel(String label) {
    for (HolderKind k : values()) {
      if (k.label.equals(label)) {
        return k;
      }
    }
    return null;
  }
}
