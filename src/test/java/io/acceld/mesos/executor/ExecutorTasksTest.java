package io.acceld.mesos.executor;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.executor.Event;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A custom executor's tasks: queued, delivered, reported on, lost, dropped. */
class ExecutorTasksTest {
  final ExecutorTasks tasks = new ExecutorTasks();

  static TaskInfo task(String id) {
    return MesosFixtures.task(id, MesosFixtures.shell("true"));
  }

  static TaskStatus status(String id, TaskState state) {
    return TaskStatus.newBuilder()
        .setTaskId(TaskID.newBuilder().setValue(id))
        .setState(state)
        .buildPartial();
  }

  static List<String> ids(List<TaskInfo> infos) {
    return infos.stream().map(t -> t.getTaskId().getValue()).toList();
  }

  @Test
  void aGroupIsOneLaunchGroupAndALaunchOneEventPerTask() {
    List<Event> group = ExecutorTasks.launchEvents(List.of(task("a"), task("b")), true);
    List<Event> single = ExecutorTasks.launchEvents(List.of(task("a"), task("b")), false);

    assertThat(group).extracting(Event::getType).containsExactly(Event.Type.LAUNCH_GROUP);
    assertThat(ids(ExecutorTasks.launchedBy(group.get(0)))).containsExactly("a", "b");
    assertThat(single)
        .extracting(Event::getType)
        .containsExactly(Event.Type.LAUNCH, Event.Type.LAUNCH);
    assertThat(ids(ExecutorTasks.launchedBy(single.get(1)))).containsExactly("b");
  }

  @Test
  void onResubscriptionDeliveredTasksNeitherReportedNorUnacknowledgedAreLost() {
    tasks.add(List.of(task("reported"), task("unacked"), task("lost")));
    tasks.updated(status("reported", TaskState.TASK_RUNNING));
    List<Event> queued = ExecutorTasks.launchEvents(List.of(task("queued")), false);
    tasks.add(List.of(task("queued")));
    tasks.queue(queued);

    List<TaskInfo> lost = tasks.removeLost(Set.of("unacked"));

    assertThat(ids(lost)).containsExactly("lost");
    assertThat(tasks.ids()).containsExactly("reported", "unacked", "queued");
    assertThat(tasks.drainQueue()).isEqualTo(queued);
    assertThat(tasks.drainQueue()).isEmpty();
  }

  @Test
  void aKillOfAnUndeliveredTaskDropsItsWholeGroup() {
    tasks.add(List.of(task("a"), task("b"), task("c")));
    tasks.queue(ExecutorTasks.launchEvents(List.of(task("a"), task("b")), true));

    assertThat(ids(tasks.dropUndelivered("b"))).containsExactly("a", "b");
    assertThat(tasks.ids()).containsExactly("c");
    assertThat(tasks.dropUndelivered("c")).isEmpty(); // delivered: the executor's to kill
    assertThat(tasks.ids()).containsExactly("c");
  }

  @Test
  void theRecordChangesWhenATaskStopsStagingOrEnds() {
    tasks.add(List.of(task("a")));

    assertThat(tasks.updated(status("a", TaskState.TASK_STARTING))).isTrue();
    assertThat(tasks.updated(status("a", TaskState.TASK_RUNNING))).isFalse();
    assertThat(tasks.reported()).containsExactly("a");
    assertThat(tasks.updated(status("a", TaskState.TASK_FINISHED))).isTrue();
    assertThat(tasks.ids()).isEmpty();
    assertThat(tasks.reported()).isEmpty();
    assertThat(tasks.updated(status("unknown", TaskState.TASK_RUNNING))).isFalse();
  }

  @Test
  void restoredTasksKeepOnlyTheReportsOfTasksStillKnown() {
    assertThat(tasks.everHadTask()).isFalse();

    tasks.restore(List.of(task("a"), task("b")), Set.of("b", "gone"));

    assertThat(tasks.everHadTask()).isTrue();
    assertThat(tasks.reported()).containsExactly("b");
    assertThat(ids(tasks.clear())).containsExactly("a", "b");
    assertThat(tasks.all()).isEmpty();
  }
}
