package io.acceld.inventory;

import java.util.Objects;

/**
 * The one convention for shared (time-sliced) devices: replica {@code k} of physical device {@code
 * p} is advertised as {@code p::k}. Everything that writes or reads such an ID goes through here,
 * so the kubelet side, the pod-resources reader, the allocator and the ledger agree on it.
 *
 * @param deviceId the physical device's inventory ID
 * @param replica the replica number, or {@link #WHOLE} for the device itself (not shared)
 */
public record ReplicaId(String deviceId, int replica) {
  public static final String SEPARATOR = "::";

  /** The replica number of an unshared device: the ID names the whole device. */
  public static final int WHOLE = -1;

  public ReplicaId {
    Objects.requireNonNull(deviceId, "deviceId");
    if (replica < WHOLE) {
      throw new IllegalArgumentException("replica must be >= 0 (or WHOLE), got " + replica);
    }
  }

  public static ReplicaId whole(String deviceId) {
    return new ReplicaId(deviceId, WHOLE);
  }

  public static ReplicaId of(String deviceId, int replica) {
    if (replica < 0) {
      throw new IllegalArgumentException("replica must be >= 0, got " + replica);
    }
    return new ReplicaId(deviceId, replica);
  }

  /**
   * Reads an advertised ID: the part before the last {@code ::} is the device when a decimal
   * replica number follows it; anything else (an unshared device, or an ID that merely looks odd)
   * names a whole device. Device IDs are UUIDs or PCI addresses, which never contain {@code ::}.
   */
  public static ReplicaId parse(String advertisedId) {
    int at = advertisedId.lastIndexOf(SEPARATOR);
    int digits = at + SEPARATOR.length();
    // At most 9 digits: the number must fit an int, and no one advertises a billion replicas.
    if (at <= 0 || digits == advertisedId.length() || advertisedId.length() - digits > 9) {
      return whole(advertisedId);
    }
    for (int i = digits; i < advertisedId.length(); i++) {
      if (advertisedId.charAt(i) < '0' || advertisedId.charAt(i) > '9') {
        return whole(advertisedId);
      }
    }
    return new ReplicaId(
        advertisedId.substring(0, at), Integer.parseInt(advertisedId.substring(digits)));
  }

  /** The physical device behind an advertised ID. */
  public static String physicalOf(String advertisedId) {
    return parse(advertisedId).deviceId();
  }

  public boolean isWhole() {
    return replica == WHOLE;
  }

  /**
   * Whether this and {@code other} claim any of the same capacity: same device, and either is the
   * whole device or both are the same replica.
   */
  public boolean overlaps(ReplicaId other) {
    return deviceId.equals(other.deviceId)
        && (isWhole() || other.isWhole() || replica == other.replica);
  }

  /** The ID as advertised: {@code p} for a whole device, {@code p::k} for a replica. */
  public String advertisedId() {
    return isWhole() ? deviceId : deviceId + SEPARATOR + replica;
  }

  @Override
  public String toString() {
    return advertisedId();
  }
}
