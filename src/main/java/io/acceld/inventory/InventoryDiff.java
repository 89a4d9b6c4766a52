package io.acceld.inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What changed between two snapshots. Publishers subscribe to diffs rather than snapshots so that a
 * rescan that finds the same hardware costs them nothing.
 *
 * @param added devices only in the newer snapshot
 * @param removed devices only in the older snapshot
 * @param changed devices in both whose value differs (health, nodes, attributes)
 * @param topologyChanged whether pairwise topology differs
 * @param nodeChanged whether the node's facts differ (a resource advertised empty, a problem that
 *     keeps the node unready): worth publishing although no device changed
 */
public record InventoryDiff(
    List<Device> added,
    List<Device> removed,
    List<Change> changed,
    boolean topologyChanged,
    boolean nodeChanged) {

  /** One device before and after. */
  public record Change(Device before, Device after) {}

  public InventoryDiff {
    added = List.copyOf(added);
    removed = List.copyOf(removed);
    changed = List.copyOf(changed);
  }

  public static InventoryDiff between(Inventory before, Inventory after) {
    List<Device> added = new ArrayList<>();
    List<Change> changed = new ArrayList<>();
    for (Device now : after.devices()) {
      before
          .device(now.id())
          .ifPresentOrElse(
              was -> {
                if (!was.equals(now)) {
                  changed.add(new Change(was, now));
                }
              },
              () -> added.add(now));
    }
    List<Device> removed =
        before.devices().stream().filter(d -> after.device(d.id()).isEmpty()).toList();
    return new InventoryDiff(
        added,
        removed,
        changed,
        !before.topology().equals(after.topology()),
        !before.node().equals(after.node()));
  }

  public boolean isEmpty() {
    return added.isEmpty()
        && removed.isEmpty()
        && changed.isEmpty()
        && !topologyChanged
        && !nodeChanged;
  }

  /** Resource names touched by this diff, in order. */
  public SortedSet<String> affectedResources() {
    SortedSet<String> names = new TreeSet<>();
    added.forEach(d -> names.add(d.resource()));
    removed.forEach(d -> names.add(d.resource()));
    changed.forEach(
        c -> {
          names.add(c.before().resource());
          names.add(c.after().resource());
        });
    return names;
  }
}
