package io.acceld.mesos.executor;

import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import java.util.Objects;

/** An executor's identity on this agent: executor IDs are unique only within a framework. */
record ExecutorKey(String framework, String executor) {
  ExecutorKey {
    Objects.requireNonNull(framework, "framework");
    Objects.requireNonNull(executor, "executor");
  }

  static ExecutorKey of(FrameworkID framework, ExecutorID executor) {
    return new ExecutorKey(framework.getValue(), executor.getValue());
  }
}
