package io.acceld.health;

import io.acceld.inventory.HealthProblem;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Why one device is unhealthy: the source, the XID when there is one, when it was seen, and a
 * sentence for people.
 *
 * @param deviceId inventory ID of the device
 * @param source what raised it
 * @param xid the XID code for {@link HealthSource#XID} marks
 * @param since when the condition was observed
 * @param reason human-readable reason, such as {@code XID 79 (GPU has fallen off the bus)}
 */
public record HealthMark(
    String deviceId, HealthSource source, OptionalInt xid, Instant since, String reason) {
  /** The XID the driver raises when a GPU has fallen off the bus: the GPU is lost. */
  static final int XID_FALLEN_OFF_THE_BUS = 79;

  public HealthMark {
    Objects.requireNonNull(deviceId);
    Objects.requireNonNull(source);
    Objects.requireNonNull(since);
    Objects.requireNonNull(reason);
  }

  public static HealthMark xid(String deviceId, int xid, Instant since) {
    return new HealthMark(
        deviceId,
        HealthSource.XID,
        OptionalInt.of(xid),
        since,
        "XID " + xid + " (" + XidNames.name(xid) + ")");
  }

  /** NVML reports the GPU lost. */
  public static HealthMark gpuLost(String deviceId, Instant since) {
    return of(deviceId, HealthSource.GPU_LOST, since, HealthProblem.GPU_LOST_TEXT);
  }

  public static HealthMark of(String deviceId, HealthSource source, Instant since, String reason) {
    return new HealthMark(deviceId, source, OptionalInt.empty(), since, reason);
  }

  /**
   * The kind of problem this mark is. An XID 79 is a lost GPU reported by the driver rather than by
   * NVML, so it counts as one (an alert on lost GPUs fires whichever saw it first), while the mark
   * stays an XID mark, sticky until the quarantine ends.
   */
  public HealthProblem.Kind kind() {
    return xid.isPresent() && xid.getAsInt() == XID_FALLEN_OFF_THE_BUS
        ? HealthProblem.Kind.GPU_LOST
        : source.kind();
  }

  /** This mark as a problem of the device, naming its source and since when. */
  public HealthProblem problem() {
    return HealthProblem.of(kind(), reason).raisedBy(source.name(), since);
  }
}
