package io.acceld.proto;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.CommandInfo;
import io.acceld.proto.mesos.v1.Environment;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.Filters;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.MasterInfo;
import io.acceld.proto.mesos.v1.NetworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.OperationState;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.Value;
import org.junit.jupiter.api.Test;

/** Shape of the shared mesos.v1 types: enums, [default=...] values, labels and numbers. */
class MesosTypesTest {

  private static FieldDescriptor f(Descriptor d, String name) {
    FieldDescriptor field = d.findFieldByName(name);
    assertThat(field).as("%s.%s", d.getName(), name).isNotNull();
    return field;
  }

  @Test
  void enumsMatchTheTables() {
    assertThat(Shapes.values(TaskState.getDescriptor()))
        .isEqualTo(
            "TASK_STAGING=6, TASK_STARTING=0, TASK_RUNNING=1, TASK_KILLING=8, TASK_FINISHED=2,"
                + " TASK_FAILED=3, TASK_KILLED=4, TASK_ERROR=7, TASK_LOST=5, TASK_DROPPED=9,"
                + " TASK_UNREACHABLE=10, TASK_GONE=11, TASK_GONE_BY_OPERATOR=12,"
                + " TASK_UNKNOWN=13");
    assertThat(Shapes.values(OperationState.getDescriptor()))
        .isEqualTo(
            "OPERATION_UNSUPPORTED=0, OPERATION_PENDING=1, OPERATION_FINISHED=2,"
                + " OPERATION_FAILED=3, OPERATION_ERROR=4, OPERATION_DROPPED=5,"
                + " OPERATION_UNREACHABLE=6, OPERATION_GONE_BY_OPERATOR=7,"
                + " OPERATION_RECOVERING=8, OPERATION_UNKNOWN=9");
    assertThat(Shapes.values(FrameworkInfo.Capability.Type.getDescriptor()))
        .isEqualTo(
            "UNKNOWN=0, REVOCABLE_RESOURCES=1, TASK_KILLING_STATE=2, GPU_RESOURCES=3,"
                + " SHARED_RESOURCES=4, PARTITION_AWARE=5, MULTI_ROLE=6,"
                + " RESERVATION_REFINEMENT=7, REGION_AWARE=8");
    assertThat(Shapes.values(MasterInfo.Capability.Type.getDescriptor()))
        .isEqualTo("UNKNOWN=0, AGENT_UPDATE=1, AGENT_DRAINING=2, QUOTA_V2=3");
    assertThat(Shapes.values(AgentInfo.Capability.Type.getDescriptor()))
        .isEqualTo(
            "UNKNOWN=0, MULTI_ROLE=1, HIERARCHICAL_ROLE=2, RESERVATION_REFINEMENT=3,"
                + " RESOURCE_PROVIDER=4, RESIZE_VOLUME=5, AGENT_OPERATION_FEEDBACK=6,"
                + " AGENT_DRAINING=7, TASK_RESOURCE_LIMITS=8");
    assertThat(Shapes.values(Value.Type.getDescriptor()))
        .isEqualTo("SCALAR=0, RANGES=1, SET=2, TEXT=3");
    assertThat(Shapes.values(Resource.DiskInfo.Source.Type.getDescriptor()))
        .isEqualTo("UNKNOWN=0, PATH=1, MOUNT=2, BLOCK=3, RAW=4");
    assertThat(Shapes.values(Resource.ReservationInfo.Type.getDescriptor()))
        .isEqualTo("UNKNOWN=0, STATIC=1, DYNAMIC=2");
    assertThat(Shapes.values(Environment.Variable.Type.getDescriptor()))
        .isEqualTo("UNKNOWN=0, VALUE=1, SECRET=2");
    assertThat(Shapes.values(ExecutorInfo.Type.getDescriptor()))
        .isEqualTo("UNKNOWN=0, DEFAULT=1, CUSTOM=2");
    assertThat(Shapes.values(TaskStatus.Source.getDescriptor()))
        .isEqualTo("SOURCE_MASTER=0, SOURCE_AGENT=1, SOURCE_EXECUTOR=2");
    assertThat(Shapes.values(NetworkInfo.Protocol.getDescriptor())).isEqualTo("IPv4=1, IPv6=2");
    assertThat(Shapes.values(Offer.Operation.Type.getDescriptor()))
        .isEqualTo(
            "UNKNOWN=0, LAUNCH=1, LAUNCH_GROUP=6, RESERVE=2, UNRESERVE=3, CREATE=4, DESTROY=5,"
                + " GROW_VOLUME=11, SHRINK_VOLUME=12, CREATE_DISK=13, DESTROY_DISK=14");
    assertThat(TaskStatus.Reason.getDescriptor().getValues()).hasSize(35);
    assertThat(TaskStatus.Reason.REASON_TASK_INVALID.getNumber()).isEqualTo(14);
    assertThat(TaskStatus.Reason.REASON_AGENT_DRAINING.getNumber()).isEqualTo(34);
    assertThat(TaskStatus.Reason.REASON_MAX_COMPLETION_TIME_REACHED.getNumber()).isEqualTo(33);
  }

  @Test
  void explicitDefaults() {
    FrameworkInfo fi = FrameworkInfo.getDefaultInstance();
    assertThat(fi.getFailoverTimeout()).isEqualTo(0.0);
    assertThat(fi.getCheckpoint()).isFalse();
    FieldDescriptor role = f(FrameworkInfo.getDescriptor(), "role");
    assertThat(role.getDefaultValue()).isEqualTo("*");
    assertThat(role.getOptions().getDeprecated()).isTrue();
    FieldDescriptor resourceRole = f(Resource.getDescriptor(), "role");
    assertThat(resourceRole.getDefaultValue()).isEqualTo("*");
    assertThat(resourceRole.getOptions().getDeprecated()).isTrue();
    assertThat(f(ExecutorInfo.getDescriptor(), "source").getOptions().getDeprecated()).isTrue();

    assertThat(Filters.getDefaultInstance().getRefuseSeconds()).isEqualTo(5.0);
    assertThat(Filters.getDefaultInstance().hasRefuseSeconds()).isFalse();
    assertThat(MasterInfo.getDefaultInstance().getPort()).isEqualTo(5050);
    assertThat(AgentInfo.getDefaultInstance().getPort()).isEqualTo(5051);
    assertThat(CommandInfo.getDefaultInstance().getShell()).isTrue();
    assertThat(CommandInfo.URI.getDefaultInstance().getExtract()).isTrue();
    assertThat(Environment.Variable.getDefaultInstance().getType())
        .isEqualTo(Environment.Variable.Type.VALUE);
    assertThat(NetworkInfo.IPAddress.getDefaultInstance().getProtocol())
        .isEqualTo(NetworkInfo.Protocol.IPv4);
    // No explicit default: the first declared value.
    assertThat(TaskStatus.getDefaultInstance().getState()).isEqualTo(TaskState.TASK_STAGING);
  }

  @Test
  void defaultsAreNotWrittenUnlessSet() {
    assertThat(Filters.getDefaultInstance().toByteArray()).isEmpty();
    // proto2 has field presence: an explicitly set value equal to the default is written.
    assertThat(Filters.newBuilder().setRefuseSeconds(5.0).build().toByteArray())
        .isEqualTo(Wire.field(1, Wire.dbl(5.0)));
  }

  @Test
  void labelsAndTypes() {
    Descriptor res = Resource.getDescriptor();
    assertThat(f(res, "name").isRequired()).isTrue();
    assertThat(f(res, "type").isRequired()).isTrue();
    assertThat(f(res, "type").getEnumType()).isEqualTo(Value.Type.getDescriptor());
    assertThat(f(res, "reservations").isRepeated()).isTrue();
    assertThat(f(res, "reservations").getNumber()).isEqualTo(13);
    assertThat(f(MasterInfo.getDescriptor(), "ip").getType())
        .isEqualTo(FieldDescriptor.Type.UINT32);
    assertThat(f(TaskStatus.getDescriptor(), "uuid").getType())
        .isEqualTo(FieldDescriptor.Type.BYTES);
    assertThat(f(TaskStatus.getDescriptor(), "timestamp").getType())
        .isEqualTo(FieldDescriptor.Type.DOUBLE);
    FieldDescriptor limits = f(TaskInfo.getDescriptor(), "limits");
    assertThat(limits.isMapField()).isTrue();
    assertThat(limits.getNumber()).isEqualTo(15);
    assertThat(limits.getMessageType().getName()).isEqualTo("LimitsEntry");
  }

  @Test
  void fieldNumbers() {
    assertThat(Shapes.fields(FrameworkInfo.getDescriptor()))
        .isEqualTo(
            "user=1, name=2, id=3, failover_timeout=4, checkpoint=5, role=6, hostname=7,"
                + " principal=8, webui_url=9, capabilities=10, labels=11, roles=12");
    assertThat(Shapes.fields(Resource.getDescriptor()))
        .isEqualTo(
            "name=1, type=2, scalar=3, ranges=4, set=5, role=6, disk=7, reservation=8,"
                + " revocable=9, shared=10, allocation_info=11, provider_id=12, reservations=13");
    assertThat(Shapes.fields(Offer.getDescriptor()))
        .isEqualTo(
            "id=1, framework_id=2, agent_id=3, hostname=4, resources=5, executor_ids=6,"
                + " attributes=7, url=8, unavailability=9, allocation_info=10");
    assertThat(Shapes.fields(TaskInfo.getDescriptor()))
        .isEqualTo(
            "name=1, task_id=2, agent_id=3, resources=4, executor=5, data=6, command=7,"
                + " labels=10, kill_policy=12, max_completion_time=14, limits=15");
    assertThat(Shapes.fields(TaskStatus.getDescriptor()))
        .isEqualTo(
            "task_id=1, state=2, data=3, message=4, agent_id=5, timestamp=6, executor_id=7,"
                + " healthy=8, source=9, reason=10, uuid=11, labels=12, container_status=13,"
                + " unreachable_time=14, check_status=15");
    assertThat(Shapes.fields(ExecutorInfo.getDescriptor()))
        .isEqualTo(
            "executor_id=1, data=4, resources=5, command=7, framework_id=8, name=9, source=10,"
                + " shutdown_grace_period=13, labels=14, type=15");
    assertThat(Shapes.fields(AgentInfo.getDescriptor()))
        .isEqualTo("hostname=1, resources=3, attributes=5, id=6, port=8");
    assertThat(Shapes.fields(Offer.Operation.getDescriptor()))
        .isEqualTo(
            "type=1, launch=2, reserve=3, unreserve=4, create=5, destroy=6, launch_group=7, id=12,"
                + " grow_volume=13, shrink_volume=14, create_disk=15, destroy_disk=16");
  }
}
