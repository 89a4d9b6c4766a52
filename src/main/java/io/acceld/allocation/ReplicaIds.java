package io.acceld.allocation;

/**
 * The advertised-ID convention for shared devices: replica {@code k} of physical device {@code p}
 * is advertised as {@code p::k}. Only the convention lives here; which devices are shared is
 * configuration.
 */
public final class ReplicaIds {
  static final String SEPARATOR = "::";

  private ReplicaIds() {}

  /** The advertised ID of replica {@code k} of a physical device. */
  public static String replicaId(String physicalId, int k) {
    return physicalId + SEPARATOR + k;
  }

  /**
   * The physical device behind an advertised ID: the part before the last {@code ::} when a decimal
   * replica number follows it, else the ID itself (an unshared device, or a malformed ID that is
   * then simply its own device).
   */
  public static String physicalOf(String advertisedId) {
    int at = advertisedId.lastIndexOf(SEPARATOR);
    if (at <= 0 || at + SEPARATOR.length() == advertisedId.length()) {
      return advertisedId;
    }
    for (int i = at + SEPARATOR.length(); i < advertisedId.length(); i++) {
      if (advertisedId.charAt(i) < '0' || advertisedId.charAt(i) > '9') {
        return advertisedId;
      }
    }
    return advertisedId.substring(0, at);
  }
}
