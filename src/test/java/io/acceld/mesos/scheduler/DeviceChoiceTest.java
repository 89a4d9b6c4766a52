package io.acceld.mesos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.allocation.DeviceChooser;
import io.acceld.inventory.Inventory;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Devices for an ACCEPT's tasks, one task after another, from its offers' devices only. */
class DeviceChoiceTest {
  /** Picks the first {@code size} it is given, and records what it was offered. */
  final List<List<String>> asked = new ArrayList<>();

  final DeviceChooser firsts =
      (inventory, available, mustInclude, size) -> {
        asked.add(available);
        return available.subList(0, size);
      };

  static TaskVerdict.Valid needing(String id, Map<String, Integer> counts) {
    return new TaskVerdict.Valid(
        TaskInfo.newBuilder()
            .setName(id)
            .setTaskId(TaskID.newBuilder().setValue(id))
            .buildPartial(),
        Quantities.NONE,
        counts);
  }

  @Test
  void aDeviceOneTaskGotIsNotOfferedToTheNext() {
    DeviceChoice choice =
        new DeviceChoice(firsts, Inventory.EMPTY, Map.of("gpus", List.of("g0", "g1", "g2")));

    assertThat(choice.choose(needing("a", Map.of("gpus", 2)))).contains(List.of("g0", "g1"));
    assertThat(choice.choose(needing("b", Map.of("gpus", 1)))).contains(List.of("g2"));
    assertThat(asked).containsExactly(List.of("g0", "g1", "g2"), List.of("g2"));
    assertThat(choice.choose(needing("c", Map.of("gpus", 1)))).isEmpty();
  }

  @Test
  void aTaskNeedingMoreThanIsLeftGetsNothingAndTakesNothing() {
    DeviceChoice choice =
        new DeviceChoice(
            firsts, Inventory.EMPTY, Map.of("gpus", List.of("g0"), "amd.com/gpu", List.of("a0")));

    assertThat(choice.choose(needing("big", Map.of("gpus", 2)))).isEmpty();
    assertThat(choice.choose(needing("other", Map.of("amd.com/gpu", 1, "gpus", 1))))
        .hasValueSatisfying(ids -> assertThat(ids).containsExactlyInAnyOrder("g0", "a0"));
  }

  @Test
  void aTaskWithoutDevicesGetsAnEmptyChoice() {
    DeviceChoice choice = new DeviceChoice(firsts, Inventory.EMPTY, Map.of());

    assertThat(choice.choose(needing("cpu-only", Map.of()))).contains(List.of());
  }

  @Test
  void aChooserAnswerOutsideTheOfferedDevicesIsRefused() {
    DeviceChooser wrong = (inventory, available, mustInclude, size) -> List.of("elsewhere");
    DeviceChoice choice = new DeviceChoice(wrong, Inventory.EMPTY, Map.of("gpus", List.of("g0")));

    assertThat(choice.choose(needing("a", Map.of("gpus", 1)))).isEmpty();
  }
}
