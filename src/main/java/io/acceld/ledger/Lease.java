package io.acceld.ledger;

import io.acceld.inventory.ReplicaId;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One device (or one replica slot of a shared device) held by one holder.
 *
 * @param slot the physical device ID, and the replica when the device is shared
 * @param holder who holds it
 * @param since when the holder got it
 * @param why what handed it out, for people: {@code Allocate of nvidia.com/gpu}, {@code offer O-3}
 * @param partOf for a MIG device, the GPU it is part of: while the lease stands that GPU is not
 *     leased whole, even after the MIG device is gone from the inventory (a re-partition)
 */
public record Lease(
    ReplicaId slot, Holder holder, Instant since, String why, Optional<String> partOf) {
  public Lease {
    Objects.requireNonNull(slot, "slot");
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(why, "why");
    Objects.requireNonNull(partOf, "partOf");
  }

  /** A lease of a whole device (not a MIG device). */
  public Lease(ReplicaId slot, Holder holder, Instant since, String why) {
    this(slot, holder, since, why, Optional.empty());
  }

  public String deviceId() {
    return slot.deviceId();
  }

  /** {@code Mesos task f/t since 2026-...Z}: how a refusal names the holder. */
  public String describeHolder() {
    return holder.describe() + " since " + since;
  }
}
