package io.acceld.mesos.executor;

import io.acceld.ledger.Holder;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskID;
import java.util.Objects;

/** A task's identity on this agent: task IDs are unique only within a framework. */
record TaskKey(String framework, String task) {
  TaskKey {
    Objects.requireNonNull(framework, "framework");
    Objects.requireNonNull(task, "task");
  }

  static TaskKey of(FrameworkID framework, TaskID task) {
    return new TaskKey(framework.getValue(), task.getValue());
  }

  Holder.MesosTask holder() {
    return new Holder.MesosTask(framework, task);
  }
}
