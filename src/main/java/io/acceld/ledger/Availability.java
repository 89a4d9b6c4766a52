package io.acceld.ledger;

import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What every publisher reads: the inventory (present devices with their health) and the leases, as
 * one immutable snapshot. Availability is derived here and stored nowhere: a device is available
 * when it is present, Healthy, and no slot of it is leased.
 */
public final class Availability {
  public static final Availability EMPTY = new Availability(0, Inventory.EMPTY, List.of());

  private final long version;
  private final Inventory inventory;
  private final List<Lease> leases;
  private final Map<String, List<Lease>> byDevice;
  // Leases of MIG devices by the GPU they are part of.
  private final Map<String, List<Lease>> byParent;

  Availability(long version, Inventory inventory, List<Lease> leases) {
    this.version = version;
    this.inventory = inventory;
    this.leases = List.copyOf(leases);
    Map<String, List<Lease>> index = new LinkedHashMap<>();
    for (Lease l : this.leases) {
      index.computeIfAbsent(l.deviceId(), d -> new ArrayList<>(1)).add(l);
    }
    index.replaceAll((d, l) -> List.copyOf(l));
    this.byDevice = Collections.unmodifiableMap(index);
    Map<String, List<Lease>> parents = new LinkedHashMap<>();
    for (Lease l : this.leases) {
      l.partOf().ifPresent(p -> parents.computeIfAbsent(p, k -> new ArrayList<>(1)).add(l));
    }
    this.byParent = Collections.unmodifiableMap(parents);
  }

  /** The GPU a MIG device is part of; empty for a whole device. */
  public static Optional<String> parentOf(Device device) {
    return device.nvidia().flatMap(n -> n.mig()).map(m -> m.parentUuid());
  }

  /**
   * The leases that keep {@code device} from being leased: its own, and for a MIG device those of
   * its GPU leased whole, for a whole GPU those of its MIG devices. A GPU serves one holder whole
   * or its MIG devices serve theirs, never both.
   */
  public List<Lease> conflicting(Device device) {
    List<Lease> found = new ArrayList<>(leasesOf(device.id()));
    Optional<String> parent = parentOf(device);
    if (parent.isPresent()) {
      found.addAll(leasesOf(parent.get()));
    } else {
      found.addAll(byParent.getOrDefault(device.id(), List.of()));
    }
    return found;
  }

  /**
   * A snapshot outside any ledger: an inventory and leases read back from a checkpoint, for a
   * one-shot listing.
   */
  public static Availability of(Inventory inventory, List<Lease> leases) {
    return new Availability(0, inventory, leases);
  }

  /** This snapshot's leases over another inventory: for views of an inventory alone. */
  public Availability withInventory(Inventory next) {
    return new Availability(version, next, leases);
  }

  /** Grows by one with every change of leases or inventory. */
  public long version() {
    return version;
  }

  public Inventory inventory() {
    return inventory;
  }

  /** Every lease, in the order they were granted. */
  public List<Lease> leases() {
    return leases;
  }

  /** The leases on one physical device: none, one, or one per leased replica. */
  public List<Lease> leasesOf(String deviceId) {
    return byDevice.getOrDefault(deviceId, List.of());
  }

  public boolean isLeased(String deviceId) {
    return byDevice.containsKey(deviceId);
  }

  /** Present, Healthy and not leased at all, nor its GPU or MIG devices ({@link #conflicting}). */
  public boolean isAvailable(Device device) {
    return device.isHealthy()
        && conflicting(device).isEmpty()
        && inventory.device(device.id()).isPresent();
  }

  /** The available devices of {@code resource}, in inventory order. */
  public List<Device> available(String resource) {
    return inventory.devicesOf(resource).stream().filter(this::isAvailable).toList();
  }

  /**
   * A lease on {@code deviceId} held by another side than {@code viewer}: such a device is not the
   * viewer's to hand out, whatever its health.
   */
  public Optional<Lease> heldAgainst(String deviceId, Publisher viewer) {
    List<Lease> holding =
        inventory.device(deviceId).map(this::conflicting).orElseGet(() -> leasesOf(deviceId));
    for (Lease l : holding) {
      if (l.holder().publisher() != viewer) {
        return Optional.of(l);
      }
    }
    return Optional.empty();
  }

  /** How many leases each kind of holder has; every kind is present, zero or not. */
  public Map<HolderKind, Integer> countsByKind() {
    Map<HolderKind, Integer> counts = new EnumMap<>(HolderKind.class);
    for (HolderKind k : HolderKind.values()) {
      counts.put(k, 0);
    }
    leases.forEach(l -> counts.merge(l.holder().kind(), 1, Integer::sum));
    return counts;
  }

  @Override
  public String toString() {
    return "Availability[v" + version + ", " + inventory + ", " + leases.size() + " lease(s)]";
  }
}
