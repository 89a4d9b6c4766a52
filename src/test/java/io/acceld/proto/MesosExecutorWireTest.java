package io.acceld.proto;

import static io.acceld.proto.Wire.concat;
import static io.acceld.proto.Wire.dbl;
import static io.acceld.proto.Wire.field;
import static io.acceld.proto.Wire.message;
import static io.acceld.proto.Wire.string;
import static io.acceld.proto.Wire.varint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UninitializedMessageException;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.CommandInfo;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.Value;
import io.acceld.proto.mesos.v1.executor.Call;
import io.acceld.proto.mesos.v1.executor.Event;
import org.junit.jupiter.api.Test;

/** Golden bytes for the Mesos v1 executor API (package mesos.v1.executor). */
class MesosExecutorWireTest {

  private static final byte[] UUID16 = Wire.hex("00112233 44556677 8899aabb ccddeeff");

  /** Body of any of the *ID messages: {value = 1}. */
  private static byte[] id(String value) {
    return field(1, string(value));
  }

  @Test
  void updateCallWithRunningTaskStatus() throws Exception {
    byte[] status =
        concat(
            field(1, message(field(1, string("task-1")))),
            field(2, varint(1)), // TASK_RUNNING
            field(7, message(field(1, string("acceld-exec")))),
            field(9, varint(2)), // SOURCE_EXECUTOR
            field(11, Wire.bytes(UUID16)));
    byte[] golden =
        concat(
            field(1, message(field(1, string("acceld-exec")))),
            field(2, message(field(1, string("M-0001")))),
            field(3, varint(2)), // UPDATE
            field(5, message(field(1, message(status)))));

    Call built =
        Call.newBuilder()
            .setExecutorId(ExecutorID.newBuilder().setValue("acceld-exec"))
            .setFrameworkId(FrameworkID.newBuilder().setValue("M-0001"))
            .setType(Call.Type.UPDATE)
            .setUpdate(
                Call.Update.newBuilder()
                    .setStatus(
                        TaskStatus.newBuilder()
                            .setTaskId(TaskID.newBuilder().setValue("task-1"))
                            .setState(TaskState.TASK_RUNNING)
                            .setExecutorId(ExecutorID.newBuilder().setValue("acceld-exec"))
                            .setSource(TaskStatus.Source.SOURCE_EXECUTOR)
                            .setUuid(ByteString.copyFrom(UUID16))))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    Call parsed = Call.parseFrom(golden);
    assertThat(parsed.getExecutorId().getValue()).isEqualTo("acceld-exec");
    assertThat(parsed.getFrameworkId().getValue()).isEqualTo("M-0001");
    assertThat(parsed.getType()).isEqualTo(Call.Type.UPDATE);
    TaskStatus s = parsed.getUpdate().getStatus();
    assertThat(s.getTaskId().getValue()).isEqualTo("task-1");
    assertThat(s.getState()).isEqualTo(TaskState.TASK_RUNNING);
    assertThat(s.getSource()).isEqualTo(TaskStatus.Source.SOURCE_EXECUTOR);
    assertThat(s.getUuid().toByteArray()).isEqualTo(UUID16);
    assertThat(s.hasReason()).isFalse();
    assertThat(parsed).isEqualTo(built);
  }

  @Test
  void launchEventWithTaskInfo() throws Exception {
    byte[] task =
        concat(
            field(1, string("train")),
            field(2, message(field(1, string("task-1")))),
            field(3, message(field(1, string("M-S1")))),
            field(
                4,
                message(
                    field(1, string("gpus")),
                    field(2, varint(0)),
                    field(3, message(field(1, dbl(1)))))),
            field(7, message(field(3, string("nvidia-smi")), field(6, varint(0)))),
            // limits = 15: one map entry {key = 1, value = 2 (Value.Scalar)}
            field(15, message(field(1, string("gpus")), field(2, message(field(1, dbl(1)))))));
    byte[] golden = concat(field(1, varint(2)), field(4, message(field(1, message(task)))));

    Value.Scalar one = Value.Scalar.newBuilder().setValue(1).build();
    Event built =
        Event.newBuilder()
            .setType(Event.Type.LAUNCH)
            .setLaunch(
                Event.Launch.newBuilder()
                    .setTask(
                        TaskInfo.newBuilder()
                            .setName("train")
                            .setTaskId(TaskID.newBuilder().setValue("task-1"))
                            .setAgentId(AgentID.newBuilder().setValue("M-S1"))
                            .addResources(
                                Resource.newBuilder()
                                    .setName("gpus")
                                    .setType(Value.Type.SCALAR)
                                    .setScalar(one))
                            .setCommand(
                                CommandInfo.newBuilder().setValue("nvidia-smi").setShell(false))
                            .putLimits("gpus", one)))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    Event parsed = Event.parseFrom(golden);
    assertThat(parsed.getType()).isEqualTo(Event.Type.LAUNCH);
    TaskInfo t = parsed.getLaunch().getTask();
    assertThat(t.getName()).isEqualTo("train");
    assertThat(t.getTaskId().getValue()).isEqualTo("task-1");
    assertThat(t.getAgentId().getValue()).isEqualTo("M-S1");
    assertThat(t.getResources(0).getName()).isEqualTo("gpus");
    assertThat(t.getResources(0).getScalar().getValue()).isEqualTo(1.0);
    assertThat(t.getCommand().getValue()).isEqualTo("nvidia-smi");
    assertThat(t.getCommand().hasShell()).isTrue();
    assertThat(t.getCommand().getShell()).isFalse();
    assertThat(t.getLimitsMap()).containsOnlyKeys("gpus");
    assertThat(t.getLimitsMap().get("gpus").getValue()).isEqualTo(1.0);
    assertThat(parsed).isEqualTo(built);
  }

  @Test
  void messageCallDataIsField2() throws Exception {
    byte[] golden =
        concat(
            field(1, message(id("e"))),
            field(2, message(id("f"))),
            field(3, varint(3)),
            field(6, message(field(2, Wire.bytes(new byte[] {1, 2, 3})))));
    Call built =
        Call.newBuilder()
            .setExecutorId(ExecutorID.newBuilder().setValue("e"))
            .setFrameworkId(FrameworkID.newBuilder().setValue("f"))
            .setType(Call.Type.MESSAGE)
            .setMessage(
                Call.Message.newBuilder().setData(ByteString.copyFrom(new byte[] {1, 2, 3})))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);
    assertThat(Call.parseFrom(golden).getMessage().getData().toByteArray())
        .containsExactly(1, 2, 3);
  }

  @Test
  void acknowledgedEvent() throws Exception {
    byte[] golden =
        concat(
            field(1, varint(4)),
            field(3, message(field(1, message(id("task-1"))), field(2, Wire.bytes(UUID16)))));
    Event built =
        Event.newBuilder()
            .setType(Event.Type.ACKNOWLEDGED)
            .setAcknowledged(
                Event.Acknowledged.newBuilder()
                    .setTaskId(TaskID.newBuilder().setValue("task-1"))
                    .setUuid(ByteString.copyFrom(UUID16)))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);
    assertThat(Event.parseFrom(golden).getAcknowledged().getUuid().toByteArray()).isEqualTo(UUID16);
  }

  @Test
  void callRequiresExecutorAndFrameworkIds() {
    assertThatThrownBy(() -> Call.newBuilder().setType(Call.Type.HEARTBEAT).build())
        .isInstanceOf(UninitializedMessageException.class)
        .hasMessageContaining("executor_id")
        .hasMessageContaining("framework_id");
  }

  @Test
  void enumsAndFieldNumbersMatchTheTables() {
    assertThat(Shapes.values(Call.Type.getDescriptor()))
        .isEqualTo("UNKNOWN=0, SUBSCRIBE=1, UPDATE=2, MESSAGE=3, HEARTBEAT=4");
    assertThat(Shapes.values(Event.Type.getDescriptor()))
        .isEqualTo(
            "UNKNOWN=0, SUBSCRIBED=1, LAUNCH=2, LAUNCH_GROUP=8, KILL=3, ACKNOWLEDGED=4,"
                + " MESSAGE=5, ERROR=6, SHUTDOWN=7, HEARTBEAT=9");
    assertThat(Shapes.fields(Call.getDescriptor()))
        .isEqualTo("executor_id=1, framework_id=2, type=3, subscribe=4, update=5, message=6");
    assertThat(Shapes.fields(Call.Subscribe.getDescriptor()))
        .isEqualTo("unacknowledged_tasks=1, unacknowledged_updates=2");
    assertThat(Shapes.fields(Call.Update.getDescriptor())).isEqualTo("status=1");
    assertThat(Shapes.fields(Event.getDescriptor()))
        .isEqualTo(
            "type=1, subscribed=2, acknowledged=3, launch=4, kill=5, message=6, error=7,"
                + " launch_group=8");
    assertThat(Shapes.fields(Event.Subscribed.getDescriptor()))
        .isEqualTo("executor_info=1, framework_info=2, agent_info=3, container_id=4");
  }
}
