package io.acceld.inventory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * An immutable snapshot of the node's accelerators. Devices are kept in a fixed order (resource,
 * then ID) so two scans of the same hardware give equal snapshots and the same listings.
 */
public final class Inventory {
  public static final Inventory EMPTY = new Inventory(List.of(), NodeInfo.EMPTY, Topology.EMPTY);

  private static final Comparator<Device> ORDER =
      Comparator.comparing(Device::resource)
          .thenComparing(Device::pciAddress)
          .thenComparing(Device::id);

  private final List<Device> devices;
  private final Map<String, Device> byId;
  private final NodeInfo node;
  private final Topology topology;

  public Inventory(List<Device> devices, NodeInfo node, Topology topology) {
    List<Device> sorted = new ArrayList<>(devices);
    sorted.sort(ORDER);
    Map<String, Device> index = new LinkedHashMap<>();
    for (Device d : sorted) {
      Device previous = index.put(d.id(), d);
      if (previous != null) {
        throw new IllegalArgumentException(
            "two devices share the ID "
                + d.id()
                + ": "
                + previous.pciAddress()
                + " and "
                + d.pciAddress());
      }
    }
    this.devices = List.copyOf(sorted);
    this.byId = Collections.unmodifiableMap(index);
    this.node = node;
    this.topology = topology;
  }

  public List<Device> devices() {
    return devices;
  }

  public Optional<Device> device(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  public NodeInfo node() {
    return node;
  }

  public Topology topology() {
    return topology;
  }

  /**
   * Resource names to advertise: those that have at least one device, and those discovery says to
   * advertise empty ({@link NodeInfo#emptyResources}).
   */
  public SortedSet<String> resources() {
    SortedSet<String> names = new TreeSet<>(node.emptyResources());
    devices.forEach(d -> names.add(d.resource()));
    return Collections.unmodifiableSortedSet(names);
  }

  /** The devices of one resource, in inventory order. */
  public List<Device> devicesOf(String resource) {
    return devices.stream().filter(d -> d.resource().equals(resource)).toList();
  }

  /** This snapshot with some devices replaced by new values of the same ID. */
  public Inventory withDevices(List<Device> replacements) {
    Map<String, Device> next = new LinkedHashMap<>(byId);
    for (Device d : replacements) {
      if (!next.containsKey(d.id())) {
        throw new IllegalArgumentException("no device " + d.id() + " to replace");
      }
      next.put(d.id(), d);
    }
    return new Inventory(List.copyOf(next.values()), node, topology);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Inventory other
        && devices.equals(other.devices)
        && node.equals(other.node)
        && topology.equals(other.topology);
  }

  @Override
  public int hashCode() {
    return devices.hashCode() * 31 + topology.hashCode();
  }

  @Override
  public String toString() {
    return "Inventory" + devices.stream().map(Device::id).toList();
  }
}
