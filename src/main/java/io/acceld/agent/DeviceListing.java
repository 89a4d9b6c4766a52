package io.acceld.agent;

import io.acceld.config.SharingPolicy;
import io.acceld.inventory.Device;
import io.acceld.inventory.DeviceJson;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.Availability;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The rows of {@code acceld devices} and of a running agent's {@code /devices}: what is advertised
 * and who holds it. With sharing on, a device appears once per replica under the name it is
 * advertised by ({@code nvidia.com/gpu.shared}, ID {@code <id>::<k>}, with {@code physicalId}), as
 * the kubelet sees it. Each row says its holder: {@code holderKind} ({@code kubelet_pod}, {@code
 * kubelet_pending}, {@code mesos_task}, or {@code free}), {@code holder} (the pod as {@code
 * ns/name/container}, the Mesos task as {@code framework/task}, the pending allocation) and {@code
 * heldSince}.
 */
public final class DeviceListing {
  public static final String FREE = "free";

  private DeviceListing() {}

  public static List<Map<String, Object>> rows(
      Availability availability, Function<String, SharingPolicy> sharing, Path devRoot) {
    return rows(availability, sharing, devRoot, holder -> Optional.empty());
  }

  /**
   * As {@link #rows(Availability, Function, Path)}, with {@code containment} describing how a
   * holder is fenced (a Mesos task's cgroups, user and limits), added to its rows as {@code
   * container}.
   */
  public static List<Map<String, Object>> rows(
      Availability availability,
      Function<String, SharingPolicy> sharing,
      Path devRoot,
      Function<Holder, Optional<Map<String, Object>>> containment) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Device d : availability.inventory().devices()) {
      Map<String, Object> base = DeviceJson.row(d, availability.inventory(), devRoot);
      SharingPolicy policy = sharing.apply(d.resource());
      if (!policy.isShared()) {
        rows.add(withHolder(base, holderOf(availability, ReplicaId.whole(d.id())), containment));
        continue;
      }
      for (int k = 0; k < policy.replicas(); k++) {
        ReplicaId slot = ReplicaId.of(d.id(), k);
        Map<String, Object> row = new LinkedHashMap<>(base);
        row.put("resource", policy.advertisedName(d.resource()));
        row.put("id", slot.advertisedId());
        row.put("physicalId", d.id());
        rows.add(withHolder(row, holderOf(availability, slot), containment));
      }
    }
    return rows;
  }

  /** The lease on {@code slot}: its own, or one on the whole device. */
  private static Optional<Lease> holderOf(Availability availability, ReplicaId slot) {
    return availability.leasesOf(slot.deviceId()).stream()
        .filter(l -> l.slot().overlaps(slot))
        .findFirst();
  }

  private static Map<String, Object> withHolder(
      Map<String, Object> row,
      Optional<Lease> lease,
      Function<Holder, Optional<Map<String, Object>>> containment) {
    if (lease.isEmpty()) {
      row.put("holderKind", FREE);
      return row;
    }
    row.put("holderKind", lease.get().holder().kind().label());
    row.put("holder", lease.get().holder().name());
    row.put("heldSince", lease.get().since().toString());
    containment.apply(lease.get().holder()).ifPresent(c -> row.put("container", c));
    return row;
  }
}
