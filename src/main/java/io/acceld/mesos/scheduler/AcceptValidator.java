package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.Value;
import io.acceld.util.ClientText;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Checks the tasks of one ACCEPT against what its offers hold, in the order and with the texts of
 * Mesos's master ({@code validation.cpp}): task ID, duplicate IDs, command or executor, whole
 * {@code gpus}, then resources within what is left of the offers. Each valid task takes its share
 * of the offers, so two tasks cannot both be granted the last GPU.
 */
final class AcceptValidator {
  private final AgentID agentId;
  private final Set<String> deviceResourceNames;
  private final Predicate<TaskID> liveTask;
  private final Set<ExecutorID> runningExecutors;
  private final Set<String> seenTaskIds = new HashSet<>();
  private final Set<ExecutorID> newExecutors = new HashSet<>();
  private Quantities remaining;

  /**
   * @param offered what the ACCEPT's offers hold together
   * @param deviceResourceNames resource names that stand for devices ({@code gpus}, ...): they must
   *     be whole numbers
   * @param liveTask whether the framework already has a running task of that ID
   * @param runningExecutors the framework's executors on this node, whose resources are already in
   *     use
   */
  AcceptValidator(
      AgentID agentId,
      Quantities offered,
      Set<String> deviceResourceNames,
      Predicate<TaskID> liveTask,
      Set<ExecutorID> runningExecutors) {
    this.agentId = agentId;
    this.remaining = offered;
    this.deviceResourceNames = Set.copyOf(deviceResourceNames);
    this.liveTask = liveTask;
    this.runningExecutors = Set.copyOf(runningExecutors);
  }

  /** A LAUNCH's tasks: each on its own. */
  List<TaskVerdict> launch(List<TaskInfo> tasks) {
    List<TaskVerdict> out = new ArrayList<>();
    for (TaskInfo t : tasks) {
      out.add(one(t, Optional.empty(), false));
    }
    return out;
  }

  /**
   * A LAUNCH_GROUP's tasks: all launch or none does, and every task of a refused group carries the
   * first error, as Mesos does.
   */
  List<TaskVerdict> launchGroup(ExecutorInfo executor, List<TaskInfo> tasks) {
    Quantities before = remaining;
    Set<String> seenBefore = new HashSet<>(seenTaskIds);
    Set<ExecutorID> executorsBefore = new HashSet<>(newExecutors);
    List<TaskVerdict> out = new ArrayList<>();
    Optional<String> groupError = Optional.empty();
    if (tasks.isEmpty()) {
      groupError = Optional.of("Task group must contain at least one task");
    }
    if (!executor.hasExecutorId() || executor.getExecutorId().getValue().isEmpty()) {
      groupError = Optional.of("The executor of a task group must have an 'executor_id'");
    }
    for (TaskInfo t : tasks) {
      if (t.hasExecutor()) {
        groupError =
            groupError.or(() -> Optional.of("'TaskInfo.executor' must not be set in a task group"));
      }
    }
    if (groupError.isEmpty()) {
      for (int i = 0; i < tasks.size(); i++) {
        TaskVerdict v = one(tasks.get(i), Optional.of(executor), i == 0);
        if (v instanceof TaskVerdict.Refused r) {
          groupError = Optional.of(r.message());
        }
        out.add(v);
      }
    }
    if (groupError.isEmpty()) {
      return out;
    }
    remaining = before;
    seenTaskIds.clear();
    seenTaskIds.addAll(seenBefore);
    newExecutors.clear();
    newExecutors.addAll(executorsBefore);
    // Remember the IDs anyway: a later operation of this ACCEPT reusing them is a duplicate.
    tasks.forEach(t -> seenTaskIds.add(t.getTaskId().getValue()));
    String message = groupError.get();
    return tasks.stream()
        .map(
            t ->
                (TaskVerdict)
                    new TaskVerdict.Refused(
                        t, TaskState.TASK_ERROR, TaskStatus.Reason.REASON_TASK_INVALID, message))
        .toList();
  }

  private TaskVerdict one(
      TaskInfo task, Optional<ExecutorInfo> groupExecutor, boolean countExecutor) {
    String id = task.getTaskId().getValue();
    Optional<String> idProblem = idProblem(id);
    if (idProblem.isPresent()) {
      return invalid(task, "Task ID is invalid: " + idProblem.get());
    }
    if (!seenTaskIds.add(id) || liveTask.test(task.getTaskId())) {
      return invalid(task, "Task has duplicate ID: " + ClientText.quote(id));
    }
    if (!task.getAgentId().getValue().equals(agentId.getValue())) {
      return invalid(
          task,
          "Task uses invalid agent: "
              + ClientText.quote(task.getAgentId().getValue())
              + " (the offers are for "
              + agentId.getValue()
              + ")");
    }
    if (groupExecutor.isEmpty() && task.hasCommand() == task.hasExecutor()) {
      return invalid(
          task,
          "Task should have at least one (but not both) of CommandInfo or ExecutorInfo present");
    }
    List<Resource> resources = new ArrayList<>(task.getResourcesList());
    Optional<ExecutorInfo> executor =
        groupExecutor.or(
            () -> task.hasExecutor() ? Optional.of(task.getExecutor()) : Optional.empty());
    boolean chargeExecutor =
        executor.isPresent()
            && !runningExecutors.contains(executor.get().getExecutorId())
            && (groupExecutor.isEmpty() || countExecutor)
            && newExecutors.add(executor.get().getExecutorId());
    if (chargeExecutor) {
      resources.addAll(executor.get().getResourcesList());
    }
    Map<String, Integer> deviceCounts = new LinkedHashMap<>();
    for (Resource r : resources) {
      if (r.getType() != Value.Type.SCALAR) {
        return invalid(
            task,
            "Task uses more resources "
                + ClientText.quote(r.getName())
                + " ("
                + r.getType()
                + ") than available "
                + remaining);
      }
      double v = r.getScalar().getValue();
      if (Double.isNaN(v) || v < 0 || Double.isInfinite(v)) {
        return invalid(
            task,
            "Task uses invalid resources: Invalid scalar resource "
                + ClientText.quote(r.getName()));
      }
      if (deviceResourceNames.contains(r.getName()) || r.getName().equals(DeviceResources.GPUS)) {
        if (v != Math.floor(v)) {
          return invalid(
              task,
              "Task uses invalid resources: Invalid '"
                  + r.getName()
                  + "' resource: The '"
                  + r.getName()
                  + "' resource must be an unsigned integer");
        }
        if (v > 0) {
          deviceCounts.merge(r.getName(), (int) v, Integer::sum);
        }
      }
    }
    Quantities needs = Quantities.ofScalars(resources);
    if (!needs.fitsIn(remaining)) {
      return invalid(task, "Task uses more resources " + needs + " than available " + remaining);
    }
    remaining = remaining.minus(needs);
    return new TaskVerdict.Valid(task, needs, deviceCounts);
  }

  /** Mesos's {@code validateID}: IDs become paths and label values, so no '/', no controls. */
  static Optional<String> idProblem(String id) {
    if (id.isEmpty()) {
      return Optional.of("ID must not be empty");
    }
    if (id.equals(".") || id.equals("..")) {
      return Optional.of("'.' and '..' are not allowed");
    }
    if (id.indexOf('/') >= 0) {
      return Optional.of("'/' is not allowed");
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        return Optional.of("ID must only contain printable characters and no whitespace");
      }
    }
    return Optional.empty();
  }

  private static TaskVerdict invalid(TaskInfo task, String message) {
    return new TaskVerdict.Refused(
        task, TaskState.TASK_ERROR, TaskStatus.Reason.REASON_TASK_INVALID, message);
  }
}
