package io.acceld.health;

/** Where a health mark came from. */
public enum HealthSource {
  /** A critical XID event not on the ignore list. Stays until the quarantine ends. */
  XID(true),
  /** A double-bit (uncorrectable) ECC event. Stays until the quarantine ends. */
  ECC(true),
  /** NVML reports the GPU lost (fallen off the bus). Clears when the GPU answers again. */
  GPU_LOST(false),
  /** Retired pages are pending (a reset is needed). Clears when they are no longer pending. */
  RETIRED_PAGES(false);

  private final boolean sticky;

  HealthSource(boolean sticky) {
    this.sticky = sticky;
  }

  /**
   * Whether a mark stays until the quarantine ends. Sticky conditions have no observable "clear"
   * state: one XID says nothing about whether the next job will be fine.
   */
  public boolean sticky() {
    return sticky;
  }
}
