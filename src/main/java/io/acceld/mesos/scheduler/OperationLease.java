package io.acceld.mesos.scheduler;

import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.LeaseResult;
import io.acceld.mesos.tasks.LaunchedTask;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Leases one operation's devices in one atomic ledger call: a group launches with all its devices
 * or not at all, and a device a pod got first refuses the whole operation. Called under the
 * master's lock, so no offer is built between the choice and the lease.
 */
final class OperationLease {
  /** How the lease went. */
  sealed interface Outcome {
    /**
     * @param version the ledger version to wait for before launching (the current one when the
     *     operation has no devices)
     */
    record Granted(long version) implements Outcome {}

    /** A device was no longer free; the ledger's text says which. */
    record Refused(String message) implements Outcome {}
  }

  private final DeviceLedger ledger;

  OperationLease(DeviceLedger ledger) {
    this.ledger = ledger;
  }

  Outcome lease(FrameworkID id, List<LaunchedTask> tasks, String why) {
    List<DeviceLedger.Request> requests = requests(id, tasks, why);
    long version = ledger.current().version();
    if (!requests.isEmpty()) {
      LeaseResult result = ledger.lease(requests);
      if (result instanceof LeaseResult.Refused refused) {
        return new Outcome.Refused(refused.message());
      }
      version = ((LeaseResult.Granted) result).version();
    }
    return new Outcome.Granted(version);
  }

  /** One request per task with devices, each device whole (Mesos tasks never share one). */
  static List<DeviceLedger.Request> requests(FrameworkID id, List<LaunchedTask> tasks, String why) {
    List<DeviceLedger.Request> requests = new ArrayList<>();
    for (LaunchedTask t : tasks) {
      if (!t.deviceIds().isEmpty()) {
        requests.add(
            new DeviceLedger.Request(
                holder(id, t.task()), t.deviceIds().stream().map(ReplicaId::whole).toList(), why));
      }
    }
    return requests;
  }

  /** The ledger's name for a Mesos task. */
  static Holder.MesosTask holder(FrameworkID id, TaskInfo task) {
    return new Holder.MesosTask(id.getValue(), task.getTaskId().getValue());
  }
}
