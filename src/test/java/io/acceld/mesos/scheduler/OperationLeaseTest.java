package io.acceld.mesos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.allocation.RuntimeSpec;
import io.acceld.inventory.ReplicaId;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.mesos.tasks.LaunchedTask;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What one operation asks the ledger for. */
class OperationLeaseTest {
  static final FrameworkID FW = FrameworkID.newBuilder().setValue("fw-1").build();
  static final RuntimeSpec NONE = new RuntimeSpec(Map.of(), List.of(), List.of(), List.of());

  static LaunchedTask task(String id, String... devices) {
    return new LaunchedTask(
        TaskInfo.newBuilder()
            .setName(id)
            .setTaskId(TaskID.newBuilder().setValue(id))
            .buildPartial(),
        List.of(devices),
        NONE);
  }

  @Test
  void oneRequestPerTaskWithDevicesEachDeviceWhole() {
    List<DeviceLedger.Request> requests =
        OperationLease.requests(
            FW, List.of(task("a", "g0", "g1"), task("cpu-only"), task("b", "g2")), "ACCEPT of [o]");

    assertThat(requests)
        .containsExactly(
            new DeviceLedger.Request(
                new Holder.MesosTask("fw-1", "a"),
                List.of(ReplicaId.whole("g0"), ReplicaId.whole("g1")),
                "ACCEPT of [o]"),
            new DeviceLedger.Request(
                new Holder.MesosTask("fw-1", "b"),
                List.of(ReplicaId.whole("g2")),
                "ACCEPT of [o]"));
  }

  @Test
  void anOperationWithoutDevicesAsksForNothing() {
    assertThat(OperationLease.requests(FW, List.of(task("cpu-only")), "why")).isEmpty();
  }
}
