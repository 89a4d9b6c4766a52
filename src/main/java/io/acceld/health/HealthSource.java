package io.acceld.health;

import io.acceld.inventory.HealthProblem;

/** Where a health mark came from, and the kind of problem its marks usually are. */
public enum HealthSource {
  /** A critical XID event not on the ignore list. Stays until the quarantine ends. */
  XID(true, HealthProblem.Kind.XID),
  /** A double-bit (uncorrectable) ECC event. Stays until the quarantine ends. */
  ECC(true, HealthProblem.Kind.ECC),
  /** NVML reports the GPU lost (fallen off the bus). Clears when the GPU answers again. */
  GPU_LOST(false, HealthProblem.Kind.GPU_LOST),
  /** Retired pages are pending (a reset is needed). Clears when they are no longer pending. */
  RETIRED_PAGES(false, HealthProblem.Kind.RETIRED_PAGES);

  private final boolean sticky;
  private final HealthProblem.Kind kind;

  HealthSource(boolean sticky, HealthProblem.Kind kind) {
    this.sticky = sticky;
    this.kind = kind;
  }

  /**
   * Whether a mark stays until the quarantine ends. Sticky conditions have no observable "clear"
   * state: one XID says nothing about whether the next job will be fine.
   */
  public boolean sticky() {
    return sticky;
  }

  /** The kind of problem this source's marks are, unless the mark says otherwise. */
  HealthProblem.Kind kind() {
    return kind;
  }
}
