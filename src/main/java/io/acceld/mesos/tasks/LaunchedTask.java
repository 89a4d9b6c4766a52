package io.acceld.mesos.tasks;

import io.acceld.allocation.RuntimeSpec;
import io.acceld.proto.mesos.v1.TaskInfo;
import java.util.List;

/**
 * A task the scheduler side accepted: its devices are leased in the ledger and checkpointed before
 * the executor side sees it.
 *
 * @param deviceIds the physical device IDs it holds, in the chooser's order (empty for none)
 * @param runtime what the task's environment must say about them (NVIDIA_VISIBLE_DEVICES, ...)
 */
public record LaunchedTask(TaskInfo task, List<String> deviceIds, RuntimeSpec runtime) {
  public LaunchedTask {
    deviceIds = List.copyOf(deviceIds);
  }
}
