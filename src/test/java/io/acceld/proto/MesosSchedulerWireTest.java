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
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UninitializedMessageException;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.OfferID;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.Value;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import java.nio.ByteBuffer;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Golden bytes for the Mesos v1 scheduler API (package mesos.v1.scheduler). */
class MesosSchedulerWireTest {

  private static Resource scalar(String name, double value) {
    return Resource.newBuilder()
        .setName(name)
        .setType(Value.Type.SCALAR)
        .setScalar(Value.Scalar.newBuilder().setValue(value))
        .setAllocationInfo(Resource.AllocationInfo.newBuilder().setRole("*"))
        .build();
  }

  /** Resource{name=1, type=2 SCALAR(0), scalar=3{value=1}, allocation_info=11{role=1}}. */
  private static byte[] scalarBytes(String name, double value) {
    return concat(
        field(1, string(name)),
        field(2, varint(0)),
        field(3, message(field(1, dbl(value)))),
        field(11, message(field(1, string("*")))));
  }

  private static ByteString uuidBytes(String uuid) {
    UUID u = UUID.fromString(uuid);
    return ByteString.copyFrom(
        ByteBuffer.allocate(16)
            .putLong(u.getMostSignificantBits())
            .putLong(u.getLeastSignificantBits())
            .array());
  }

  @Test
  void subscribeCallWithGpuCapability() throws Exception {
    byte[] frameworkInfo =
        concat(
            field(1, string("root")),
            field(2, string("acceld-test")),
            field(5, varint(1)),
            field(10, message(field(1, varint(3)))),
            field(12, string("gpu-jobs")));
    byte[] golden =
        concat(
            field(2, varint(1)),
            field(3, message(field(1, message(frameworkInfo)), field(2, string("batch")))));

    Call built =
        Call.newBuilder()
            .setType(Call.Type.SUBSCRIBE)
            .setSubscribe(
                Call.Subscribe.newBuilder()
                    .setFrameworkInfo(
                        FrameworkInfo.newBuilder()
                            .setUser("root")
                            .setName("acceld-test")
                            .setCheckpoint(true)
                            .addCapabilities(
                                FrameworkInfo.Capability.newBuilder()
                                    .setType(FrameworkInfo.Capability.Type.GPU_RESOURCES))
                            .addRoles("gpu-jobs"))
                    .addSuppressedRoles("batch"))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    Call parsed = Call.parseFrom(golden);
    assertThat(parsed.hasFrameworkId()).isFalse();
    assertThat(parsed.getType()).isEqualTo(Call.Type.SUBSCRIBE);
    FrameworkInfo fi = parsed.getSubscribe().getFrameworkInfo();
    assertThat(fi.getUser()).isEqualTo("root");
    assertThat(fi.getName()).isEqualTo("acceld-test");
    assertThat(fi.getCheckpoint()).isTrue();
    assertThat(fi.getCapabilitiesList())
        .extracting(FrameworkInfo.Capability::getType)
        .containsExactly(FrameworkInfo.Capability.Type.GPU_RESOURCES);
    assertThat(fi.getRolesList()).containsExactly("gpu-jobs");
    assertThat(fi.hasFailoverTimeout()).isFalse();
    assertThat(parsed.getSubscribe().getSuppressedRolesList()).containsExactly("batch");
    assertThat(parsed).isEqualTo(built);
  }

  @Test
  void acknowledgeCall() throws Exception {
    ByteString uuid = uuidBytes("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
    byte[] golden =
        concat(
            field(1, message(field(1, string("M-0001")))),
            field(2, varint(8)),
            field(
                8,
                message(
                    field(1, message(field(1, string("M-S1")))),
                    field(2, message(field(1, string("task-1")))),
                    field(3, Wire.bytes(uuid.toByteArray())))));

    Call built =
        Call.newBuilder()
            .setFrameworkId(FrameworkID.newBuilder().setValue("M-0001"))
            .setType(Call.Type.ACKNOWLEDGE)
            .setAcknowledge(
                Call.Acknowledge.newBuilder()
                    .setAgentId(AgentID.newBuilder().setValue("M-S1"))
                    .setTaskId(TaskID.newBuilder().setValue("task-1"))
                    .setUuid(uuid))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    Call parsed = Call.parseFrom(golden);
    assertThat(parsed.getFrameworkId().getValue()).isEqualTo("M-0001");
    assertThat(parsed.getAcknowledge().getUuid().size()).isEqualTo(16);
    assertThat(parsed.getAcknowledge().getUuid()).isEqualTo(uuid);
    assertThat(parsed).isEqualTo(built);
  }

  @Test
  void offersEventWithScalarGpusResource() throws Exception {
    byte[] offer =
        concat(
            field(1, message(field(1, string("M-O1")))),
            field(2, message(field(1, string("M-0001")))),
            field(3, message(field(1, string("M-S1")))),
            field(4, string("node-a")),
            field(5, message(scalarBytes("cpus", 8))),
            field(5, message(scalarBytes("gpus", 2))));
    byte[] golden = concat(field(1, varint(2)), field(3, message(field(1, message(offer)))));

    Event built =
        Event.newBuilder()
            .setType(Event.Type.OFFERS)
            .setOffers(
                Event.Offers.newBuilder()
                    .addOffers(
                        Offer.newBuilder()
                            .setId(OfferID.newBuilder().setValue("M-O1"))
                            .setFrameworkId(FrameworkID.newBuilder().setValue("M-0001"))
                            .setAgentId(AgentID.newBuilder().setValue("M-S1"))
                            .setHostname("node-a")
                            .addResources(scalar("cpus", 8))
                            .addResources(scalar("gpus", 2))))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);

    Event parsed = Event.parseFrom(golden);
    assertThat(parsed.getType()).isEqualTo(Event.Type.OFFERS);
    Offer o = parsed.getOffers().getOffers(0);
    assertThat(o.getId().getValue()).isEqualTo("M-O1");
    assertThat(o.getHostname()).isEqualTo("node-a");
    Resource gpus = o.getResources(1);
    assertThat(gpus.getName()).isEqualTo("gpus");
    assertThat(gpus.hasType()).isTrue();
    assertThat(gpus.getType()).isEqualTo(Value.Type.SCALAR);
    assertThat(gpus.getScalar().getValue()).isEqualTo(2.0);
    assertThat(gpus.getAllocationInfo().getRole()).isEqualTo("*");
    assertThat(parsed).isEqualTo(built);
  }

  @Test
  void subscribedEventWithHeartbeatInterval() throws Exception {
    byte[] golden =
        concat(
            field(1, varint(1)),
            field(2, message(field(1, message(field(1, string("M-0001")))), field(2, dbl(15)))));
    Event built =
        Event.newBuilder()
            .setType(Event.Type.SUBSCRIBED)
            .setSubscribed(
                Event.Subscribed.newBuilder()
                    .setFrameworkId(FrameworkID.newBuilder().setValue("M-0001"))
                    .setHeartbeatIntervalSeconds(15))
            .build();
    assertThat(built.toByteArray()).isEqualTo(golden);
    assertThat(Event.parseFrom(golden).getSubscribed().getHeartbeatIntervalSeconds())
        .isEqualTo(15.0);
  }

  @Test
  void offerWithAnOmittedFieldStillParsesAndRoundTrips() throws Exception {
    // Field 11 (domain: DomainInfo) is deliberately not modelled; a master that sends it must
    // not break parsing, and the bytes survive a re-serialisation untouched.
    byte[] domain =
        field(11, message(field(1, message(field(1, message(field(1, string("r1"))))))));
    byte[] withDomain =
        concat(
            field(1, message(field(1, string("M-O1")))),
            field(2, message(field(1, string("M-0001")))),
            field(3, message(field(1, string("M-S1")))),
            field(4, string("node-a")),
            domain);

    Offer parsed = Offer.parseFrom(withDomain);
    assertThat(parsed.getHostname()).isEqualTo("node-a");
    assertThat(parsed.getUnknownFields().hasField(11)).isTrue();
    assertThat(parsed.toByteArray()).isEqualTo(withDomain);
  }

  @Test
  void requiredFieldsAreEnforced() {
    assertThatThrownBy(() -> Call.Subscribe.newBuilder().build())
        .isInstanceOf(UninitializedMessageException.class)
        .hasMessageContaining("framework_info");
    // FrameworkInfo with user (1) but no name (2).
    byte[] noName = field(1, message(field(1, message(field(1, string("root"))))));
    assertThatThrownBy(() -> Call.Subscribe.parseFrom(noName))
        .isInstanceOf(InvalidProtocolBufferException.class);
  }

  @Test
  void enumsMatchTheTables() {
    assertThat(Shapes.values(Call.Type.getDescriptor()))
        .isEqualTo(
            "UNKNOWN=0, SUBSCRIBE=1, TEARDOWN=2, ACCEPT=3, DECLINE=4, ACCEPT_INVERSE_OFFERS=13,"
                + " DECLINE_INVERSE_OFFERS=14, REVIVE=5, KILL=6, SHUTDOWN=7, ACKNOWLEDGE=8,"
                + " ACKNOWLEDGE_OPERATION_STATUS=15, RECONCILE=9, RECONCILE_OPERATIONS=16,"
                + " MESSAGE=10, REQUEST=11, SUPPRESS=12, UPDATE_FRAMEWORK=17");
    assertThat(Shapes.values(Event.Type.getDescriptor()))
        .isEqualTo(
            "UNKNOWN=0, SUBSCRIBED=1, OFFERS=2, INVERSE_OFFERS=9, RESCIND=3,"
                + " RESCIND_INVERSE_OFFER=10, UPDATE=4, UPDATE_OPERATION_STATUS=11, MESSAGE=5,"
                + " FAILURE=6, ERROR=7, HEARTBEAT=8");
  }

  @Test
  void callAndEventFieldNumbers() {
    assertThat(Shapes.fields(Call.getDescriptor()))
        .isEqualTo(
            "framework_id=1, type=2, subscribe=3, accept=4, decline=5, kill=6, shutdown=7,"
                + " acknowledge=8, reconcile=9, message=10, request=11, accept_inverse_offers=13,"
                + " decline_inverse_offers=14, revive=15, suppress=16,"
                + " acknowledge_operation_status=17, reconcile_operations=18, update_framework=19");
    assertThat(Shapes.fields(Event.getDescriptor()))
        .isEqualTo(
            "type=1, subscribed=2, offers=3, rescind=4, update=5, message=6, failure=7, error=8,"
                + " inverse_offers=9, rescind_inverse_offer=10, update_operation_status=11");
    assertThat(Shapes.fields(Call.Subscribe.getDescriptor()))
        .isEqualTo("framework_info=1, suppressed_roles=2");
    assertThat(
            Call.Request.getDescriptor().findFieldByName("requests").getMessageType().getFullName())
        .isEqualTo("mesos.v1.Request");
  }
}
