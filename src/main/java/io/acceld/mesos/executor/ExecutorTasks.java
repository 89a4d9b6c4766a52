package io.acceld.mesos.executor;

import io.acceld.proto.mesos.v1.TaskGroupInfo;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.executor.Event;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A custom executor's tasks as the agent keeps them: the LAUNCH and LAUNCH_GROUP events not yet
 * delivered, every task not known to be terminal (queued or delivered), and which of them the
 * executor has sent an update for. What a restart must know of them is {@link #all()} and {@link
 * #reported()}.
 *
 * <p>Not thread-safe: its {@link ExecutorProcess}'s monitor guards it, as it guards the executor's
 * state and stream, since a task's delivery and the stream it goes to are decided together.
 */
final class ExecutorTasks {
  /** LAUNCH and LAUNCH_GROUP events not yet delivered, in order. */
  private final List<Event> queue = new ArrayList<>();

  /** Every task not known to be terminal, queued or delivered, in launch order. */
  private final Map<String, TaskInfo> tasks = new LinkedHashMap<>();

  /** Tasks the executor has sent at least one update for (no longer "staging"). */
  private final Set<String> updated = new HashSet<>();

  private boolean everHadTask;

  /** The events that launch {@code launched}: one LAUNCH_GROUP for a group, else a LAUNCH each. */
  static List<Event> launchEvents(List<TaskInfo> launched, boolean group) {
    if (group) {
      return List.of(
          Event.newBuilder()
              .setType(Event.Type.LAUNCH_GROUP)
              .setLaunchGroup(
                  Event.LaunchGroup.newBuilder()
                      .setTaskGroup(TaskGroupInfo.newBuilder().addAllTasks(launched)))
              .build());
    }
    List<Event> events = new ArrayList<>();
    for (TaskInfo t : launched) {
      events.add(
          Event.newBuilder()
              .setType(Event.Type.LAUNCH)
              .setLaunch(Event.Launch.newBuilder().setTask(t))
              .build());
    }
    return events;
  }

  /** The tasks a LAUNCH or LAUNCH_GROUP event carries. */
  static List<TaskInfo> launchedBy(Event e) {
    return e.getType() == Event.Type.LAUNCH_GROUP
        ? e.getLaunchGroup().getTaskGroup().getTasksList()
        : List.of(e.getLaunch().getTask());
  }

  /** Tasks given to the executor: known from now on, until terminal. */
  void add(List<TaskInfo> launched) {
    everHadTask = true;
    for (TaskInfo t : launched) {
      tasks.put(t.getTaskId().getValue(), t);
    }
  }

  /** Tasks from before a restart, and those the executor had reported on. */
  void restore(List<TaskInfo> known, Set<String> reported) {
    everHadTask = true;
    known.forEach(t -> tasks.put(t.getTaskId().getValue(), t));
    reported.stream().filter(tasks::containsKey).forEach(updated::add);
  }

  /** Events to deliver once the executor subscribes. */
  void queue(List<Event> events) {
    queue.addAll(events);
  }

  /** The events not yet delivered, in order; none are left queued. */
  List<Event> drainQueue() {
    List<Event> events = List.copyOf(queue);
    queue.clear();
    return events;
  }

  /** Whether it was ever given a task: one that never was has nothing to do. */
  boolean everHadTask() {
    return everHadTask;
  }

  boolean has(String taskId) {
    return tasks.containsKey(taskId);
  }

  List<String> ids() {
    return List.copyOf(tasks.keySet());
  }

  List<TaskInfo> all() {
    return List.copyOf(tasks.values());
  }

  Set<String> reported() {
    return Set.copyOf(updated);
  }

  /**
   * On a (re-)subscription: tasks delivered earlier that the executor neither lists as
   * unacknowledged nor ever sent an update for never started there (§2.2). They are forgotten, and
   * returned to be reported lost.
   */
  List<TaskInfo> removeLost(Set<String> unacknowledgedTasks) {
    Set<String> queued = new HashSet<>();
    for (Event e : queue) {
      launchedBy(e).forEach(t -> queued.add(t.getTaskId().getValue()));
    }
    List<TaskInfo> lost = new ArrayList<>();
    for (TaskInfo t : tasks.values()) {
      String id = t.getTaskId().getValue();
      if (!queued.contains(id) && !updated.contains(id) && !unacknowledgedTasks.contains(id)) {
        lost.add(t);
      }
    }
    lost.forEach(t -> tasks.remove(t.getTaskId().getValue()));
    return lost;
  }

  /**
   * A KILL of a task not yet delivered: the queued event holding it goes, with its whole group
   * (which runs or dies as one), and its tasks are forgotten.
   *
   * @return the tasks dropped; empty if the task was delivered (the executor's to kill)
   */
  List<TaskInfo> dropUndelivered(String taskId) {
    List<TaskInfo> dropped = new ArrayList<>();
    for (var it = queue.iterator(); it.hasNext(); ) {
      Event e = it.next();
      List<TaskInfo> launched = launchedBy(e);
      if (launched.stream().anyMatch(t -> t.getTaskId().getValue().equals(taskId))) {
        it.remove();
        dropped.addAll(launched);
      }
    }
    dropped.forEach(t -> tasks.remove(t.getTaskId().getValue()));
    return dropped;
  }

  /**
   * The executor reported on a task of its own.
   *
   * @return whether what a restart must know changed: the task is no longer staging, or it ended
   */
  boolean updated(TaskStatus status) {
    String id = status.getTaskId().getValue();
    if (!tasks.containsKey(id)) {
      return false;
    }
    boolean changed = updated.add(id);
    if (Statuses.isTerminal(status.getState())) {
      tasks.remove(id);
      updated.remove(id);
      changed = true;
    }
    return changed;
  }

  /** The executor is gone: every task it had, queued or delivered, is returned and forgotten. */
  List<TaskInfo> clear() {
    List<TaskInfo> all = List.copyOf(tasks.values());
    tasks.clear();
    queue.clear();
    return all;
  }
}
