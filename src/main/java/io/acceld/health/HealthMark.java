package io.acceld.health;

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

  public static HealthMark of(String deviceId, HealthSource source, Instant since, String reason) {
    return new HealthMark(deviceId, source, OptionalInt.empty(), since, reason);
  }
}
