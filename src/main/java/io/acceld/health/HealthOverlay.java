package io.acceld.health;

import io.acceld.inventory.Device;
import io.acceld.inventory.HealthProblem;
import io.acceld.inventory.Inventory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Applies the health marks to a discovery snapshot. Discovery says what is present (a missing
 * device node already makes a device unhealthy); the marks say what went wrong since. A device is
 * healthy only if both agree; its problems are discovery's first, then the marks'.
 */
public final class HealthOverlay {
  private HealthOverlay() {}

  public static Inventory apply(Inventory discovered, Map<String, List<HealthMark>> marks) {
    if (marks.isEmpty()) {
      return discovered;
    }
    List<Device> changed = new ArrayList<>();
    for (Device d : discovered.devices()) {
      List<HealthMark> deviceMarks = marks.get(d.id());
      if (deviceMarks == null || deviceMarks.isEmpty()) {
        continue;
      }
      List<HealthProblem> problems = new ArrayList<>(d.problems());
      deviceMarks.forEach(m -> problems.add(m.problem()));
      changed.add(d.withProblems(problems));
    }
    return changed.isEmpty() ? discovered : discovered.withDevices(changed);
  }
}
