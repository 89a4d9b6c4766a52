package io.acceld.mesos.scheduler;

import io.acceld.allocation.DeviceChooser;
import io.acceld.inventory.Inventory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which of an ACCEPT's offered devices each of its valid tasks gets, task by task: a device a task
 * took is not given to a later one. One per ACCEPT; not thread-safe (the ACCEPT runs under the
 * master's lock).
 */
final class DeviceChoice {
  private final DeviceChooser chooser;
  private final Inventory inventory;
  private final Map<String, List<String>> poolDevices;
  private final Set<String> taken = new HashSet<>();

  /**
   * @param inventory the snapshot the offered devices come from (the chooser reads topology there)
   * @param poolDevices the offered device IDs by resource name
   */
  DeviceChoice(DeviceChooser chooser, Inventory inventory, Map<String, List<String>> poolDevices) {
    this.chooser = chooser;
    this.inventory = inventory;
    this.poolDevices = poolDevices;
  }

  /**
   * The devices of one valid task, chosen among the offers' devices no earlier task took; empty
   * (and nothing taken) if there are too few, or the chooser picked wrongly.
   */
  Optional<List<String>> choose(TaskVerdict.Valid task) {
    List<String> chosen = new ArrayList<>();
    for (Map.Entry<String, Integer> need : task.deviceCounts().entrySet()) {
      List<String> free =
          poolDevices.getOrDefault(need.getKey(), List.of()).stream()
              .filter(d -> !taken.contains(d))
              .toList();
      if (free.size() < need.getValue()) {
        return Optional.empty();
      }
      List<String> picked = chooser.choose(inventory, free, List.of(), need.getValue());
      if (picked.size() != need.getValue() || !free.containsAll(picked)) {
        return Optional.empty();
      }
      chosen.addAll(picked);
    }
    taken.addAll(chosen);
    return Optional.of(chosen);
  }
}
