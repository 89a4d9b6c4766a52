package io.acceld.mesos.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.DurationInfo;
import io.acceld.proto.mesos.v1.Filters;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Label;
import io.acceld.proto.mesos.v1.Labels;
import io.acceld.proto.mesos.v1.MasterInfo;
import io.acceld.proto.mesos.v1.Offer;
import io.acceld.proto.mesos.v1.OfferID;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.Value;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MesosJsonTest {
  private static TaskStatus status() {
    return TaskStatus.newBuilder()
        .setTaskId(TaskID.newBuilder().setValue("t1"))
        .setState(TaskState.TASK_RUNNING)
        .build();
  }

  @Test
  void printsProtoFieldNamesCompactly() {
    assertThat(MesosJson.print(status()))
        .isEqualTo("{\"task_id\":{\"value\":\"t1\"},\"state\":\"TASK_RUNNING\"}");
  }

  @Test
  void ignoresUnknownKeysIncludingCamelCaseOnes() throws Exception {
    TaskStatus parsed =
        MesosJson.parse(
            "{\"task_id\":{\"value\":\"t1\"},\"state\":\"TASK_RUNNING\",\"bogus\":[1,{}],"
                + "\"agentId\":{\"value\":\"a\"}}",
            TaskStatus.getDefaultInstance());
    assertThat(parsed).isEqualTo(status());
  }

  @Test
  void nullMeansUnset() throws Exception {
    TaskStatus parsed =
        MesosJson.parse(
            "{\"task_id\":{\"value\":\"t1\"},\"state\":\"TASK_RUNNING\",\"message\":null,"
                + "\"labels\":null}",
            TaskStatus.getDefaultInstance());
    assertThat(parsed.hasMessage()).isFalse();
    assertThat(parsed.hasLabels()).isFalse();
  }

  @Test
  void missingRequiredFieldIsAnErrorNamingIt() {
    assertThatThrownBy(
            () -> MesosJson.parse("{\"state\":\"TASK_RUNNING\"}", TaskStatus.getDefaultInstance()))
        .isInstanceOf(MesosJsonException.class)
        .hasMessageContaining("Missing required fields")
        .hasMessageContaining("task_id");
    assertThatThrownBy(
            () ->
                MesosJson.parse(
                    "{\"task_id\":{},\"state\":\"TASK_RUNNING\"}", TaskStatus.getDefaultInstance()))
        .hasMessageContaining("task_id.value");
  }

  @Test
  void enumsByNameAndUnknownNamesLeaveOptionalFieldsUnset() throws Exception {
    TaskStatus parsed =
        MesosJson.parse(
            "{\"task_id\":{\"value\":\"t1\"},\"state\":\"TASK_FAILED\",\"source\":\"SOURCE_NOWHERE\","
                + "\"reason\":\"REASON_INVALID_OFFERS\"}",
            TaskStatus.getDefaultInstance());
    assertThat(parsed.getState()).isEqualTo(TaskState.TASK_FAILED);
    assertThat(parsed.hasSource()).isFalse();
    assertThat(parsed.getReason()).isEqualTo(TaskStatus.Reason.REASON_INVALID_OFFERS);
    assertThat(MesosJson.print(parsed)).contains("\"reason\":\"REASON_INVALID_OFFERS\"");
  }

  @Test
  void unknownEnumNameInARequiredFieldIsAnError() {
    assertThatThrownBy(
            () ->
                MesosJson.parse(
                    "{\"task_id\":{\"value\":\"t1\"},\"state\":\"TASK_SLEEPING\"}",
                    TaskStatus.getDefaultInstance()))
        .isInstanceOf(MesosJsonException.class)
        .hasMessageContaining("TASK_SLEEPING");
  }

  @Test
  void enumGivenAsNumberIsAnError() {
    assertThatThrownBy(
            () ->
                MesosJson.parse(
                    "{\"task_id\":{\"value\":\"t1\"},\"state\":1}",
                    TaskStatus.getDefaultInstance()))
        .hasMessageContaining("Not expecting a JSON number for field 'state'");
  }

  @Test
  void bytesAreStandardBase64WithPadding() throws Exception {
    TaskStatus withUuid =
        status().toBuilder()
            .setUuid(ByteString.copyFrom(new byte[] {1, 2, 3, (byte) 0xff}))
            .build();
    assertThat(MesosJson.print(withUuid)).contains("\"uuid\":\"AQID/w==\"");
    assertThat(MesosJson.parse(MesosJson.print(withUuid), TaskStatus.getDefaultInstance()))
        .isEqualTo(withUuid);
    assertThatThrownBy(
            () ->
                MesosJson.parse(
                    "{\"task_id\":{\"value\":\"t1\"},\"state\":\"TASK_RUNNING\",\"uuid\":\"bad uuid!\"}",
                    TaskStatus.getDefaultInstance()))
        .hasMessageContaining("uuid");
  }

  @Test
  void integersFromNumbersOrNumericStrings() throws Exception {
    Value.Range range =
        MesosJson.parse("{\"begin\":\"31000\",\"end\":32000}", Value.Range.getDefaultInstance());
    assertThat(range.getBegin()).isEqualTo(31000);
    assertThat(range.getEnd()).isEqualTo(32000);
    MasterInfo master =
        MesosJson.parse(
            "{\"id\":\"m\",\"ip\":\"4294967295\",\"port\":5050.0}",
            MasterInfo.getDefaultInstance());
    assertThat(Integer.toUnsignedLong(master.getIp())).isEqualTo(4294967295L);
    assertThat(master.getPort()).isEqualTo(5050);
  }

  @Test
  void integersOutOfRangeOrFractionalAreErrors() {
    assertThatThrownBy(
            () -> MesosJson.parse("{\"begin\":-1,\"end\":2}", Value.Range.getDefaultInstance()))
        .hasMessageContaining("out of range for field 'begin'");
    assertThatThrownBy(
            () ->
                MesosJson.parse(
                    "{\"id\":\"m\",\"ip\":4294967296,\"port\":1}", MasterInfo.getDefaultInstance()))
        .hasMessageContaining("'ip'");
    assertThatThrownBy(
            () -> MesosJson.parse("{\"begin\":1.5,\"end\":2}", Value.Range.getDefaultInstance()))
        .hasMessageContaining("'begin'");
    assertThatThrownBy(
            () ->
                MesosJson.parse(
                    "{\"begin\":\"12abc\",\"end\":2}", Value.Range.getDefaultInstance()))
        .hasMessageContaining("'begin'");
  }

  @Test
  void sixtyFourBitIntegersPrintAsJsonNumbers() throws Exception {
    Value.Range range = Value.Range.newBuilder().setBegin(-1L).setEnd(31000).build(); // 2^64-1
    assertThat(MesosJson.print(range)).isEqualTo("{\"begin\":18446744073709551615,\"end\":31000}");
    assertThat(MesosJson.parse(MesosJson.print(range), Value.Range.getDefaultInstance()))
        .isEqualTo(range);
    DurationInfo duration = DurationInfo.newBuilder().setNanoseconds(Long.MIN_VALUE).build();
    assertThat(MesosJson.print(duration)).isEqualTo("{\"nanoseconds\":-9223372036854775808}");
  }

  @Test
  void doublesAcceptInfinityStrings() throws Exception {
    assertThat(
            MesosJson.parse("{\"value\":\"Infinity\"}", Value.Scalar.getDefaultInstance())
                .getValue())
        .isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(
            MesosJson.parse("{\"value\":\"-Infinity\"}", Value.Scalar.getDefaultInstance())
                .getValue())
        .isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(MesosJson.parse("{\"value\":\"0.5\"}", Value.Scalar.getDefaultInstance()).getValue())
        .isEqualTo(0.5);
    assertThat(
            MesosJson.print(Value.Scalar.newBuilder().setValue(Double.POSITIVE_INFINITY).build()))
        .isEqualTo("{\"value\":\"Infinity\"}");
    assertThatThrownBy(
            () -> MesosJson.parse("{\"value\":\"lots\"}", Value.Scalar.getDefaultInstance()))
        .hasMessageContaining("'value'");
  }

  @Test
  void mapsAreObjectsWhoseValuesUseTheValueType() throws Exception {
    TaskInfo task =
        MesosJson.parse(
            "{\"name\":\"n\",\"task_id\":{\"value\":\"t\"},\"agent_id\":{\"value\":\"a\"},"
                + "\"limits\":{\"cpus\":{\"value\":\"Infinity\"},\"mem\":{\"value\":512}}}",
            TaskInfo.getDefaultInstance());
    assertThat(task.getLimitsMap().get("cpus").getValue()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(task.getLimitsMap().get("mem").getValue()).isEqualTo(512.0);
    assertThat(MesosJson.print(task))
        .contains("\"limits\":{\"cpus\":{\"value\":\"Infinity\"},\"mem\":{\"value\":512.0}}");
    // The docs' own example writes a scalar as a bare string, which stout refuses.
    assertThatThrownBy(
            () ->
                MesosJson.parse(
                    "{\"name\":\"n\",\"task_id\":{\"value\":\"t\"},\"agent_id\":{\"value\":\"a\"},"
                        + "\"limits\":{\"cpus\":\"Infinity\"}}",
                    TaskInfo.getDefaultInstance()))
        .hasMessageContaining("Not expecting a JSON string for field 'value'");
  }

  @Test
  void printsUnsetFieldsWithExplicitNonDeprecatedDefaults() {
    assertThat(MesosJson.print(Filters.getDefaultInstance())).isEqualTo("{\"refuse_seconds\":5.0}");
    FrameworkInfo framework = FrameworkInfo.newBuilder().setUser("u").setName("n").build();
    // failover_timeout and checkpoint have defaults; role's is deprecated, so it is not printed.
    assertThat(MesosJson.print(framework))
        .isEqualTo("{\"user\":\"u\",\"name\":\"n\",\"failover_timeout\":0.0,\"checkpoint\":false}");
    Resource cpus =
        Resource.newBuilder()
            .setName("cpus")
            .setType(Value.Type.SCALAR)
            .setScalar(Value.Scalar.newBuilder().setValue(4))
            .build();
    assertThat(MesosJson.print(cpus)).doesNotContain("role");
  }

  @Test
  void outputIsAsciiSafe() throws Exception {
    Label label = Label.newBuilder().setKey("gpü\n").setValue("\u2028\u0000x\"").build();
    String json = MesosJson.print(label);
    assertThat(json.chars().allMatch(c -> c >= 0x20 && c < 0x7f)).isTrue();
    assertThat(json).contains("\\u00FC").contains("\\n").contains("\\u2028").contains("\\u0000");
    assertThat(MesosJson.printBytes(label)).isEqualTo(json.getBytes(StandardCharsets.US_ASCII));
    assertThat(MesosJson.parse(json, Label.getDefaultInstance())).isEqualTo(label);
  }

  @Test
  void nonObjectDocumentsAndWrongShapesAreErrors() {
    assertThatThrownBy(() -> MesosJson.parse("[1]", Call.getDefaultInstance()))
        .hasMessageContaining("Expecting a JSON object");
    assertThatThrownBy(
            () -> MesosJson.parse("{\"framework_id\":\"abc\"}", Call.getDefaultInstance()))
        .hasMessageContaining("Not expecting a JSON string for field 'framework_id'");
    assertThatThrownBy(
            () ->
                MesosJson.parse(
                    "{\"subscribe\":{\"framework_info\":{\"user\":\"u\",\"name\":\"n\"},"
                        + "\"suppressed_roles\":\"r\"}}",
                    Call.getDefaultInstance()))
        .hasMessageContaining("'suppressed_roles'");
  }

  @Test
  void realCallsRoundTrip() throws Exception {
    Call subscribe =
        Call.newBuilder()
            .setType(Call.Type.SUBSCRIBE)
            .setSubscribe(
                Call.Subscribe.newBuilder()
                    .setFrameworkInfo(
                        FrameworkInfo.newBuilder()
                            .setUser("root")
                            .setName("gpu-scheduler")
                            .setFailoverTimeout(3600)
                            .addRoles("gpu")
                            .addCapabilities(
                                FrameworkInfo.Capability.newBuilder()
                                    .setType(FrameworkInfo.Capability.Type.GPU_RESOURCES))))
            .build();
    // Printing adds the unset defaults (checkpoint: false), so the parsed message has them set:
    // the same values, and the same JSON again.
    Call parsed = MesosJson.parse(MesosJson.print(subscribe), Call.getDefaultInstance());
    assertThat(MesosJson.print(parsed)).isEqualTo(MesosJson.print(subscribe));
    assertThat(parsed.getSubscribe().getFrameworkInfo().getCheckpoint()).isFalse();
    assertThat(parsed.getSubscribe().getFrameworkInfo().getFailoverTimeout()).isEqualTo(3600);
    assertThat(
            parsed.toBuilder()
                .setSubscribe(
                    parsed.getSubscribe().toBuilder()
                        .setFrameworkInfo(
                            parsed.getSubscribe().getFrameworkInfo().toBuilder().clearCheckpoint()))
                .build())
        .isEqualTo(subscribe);
    assertThat(MesosJson.print(subscribe))
        .contains("\"capabilities\":[{\"type\":\"GPU_RESOURCES\"}]")
        .contains("\"type\":\"SUBSCRIBE\"");

    Call accept =
        Call.newBuilder()
            .setFrameworkId(FrameworkID.newBuilder().setValue("m-0001"))
            .setType(Call.Type.ACCEPT)
            .setAccept(
                Call.Accept.newBuilder()
                    .addOfferIds(OfferID.newBuilder().setValue("m-O1"))
                    .addOperations(
                        Offer.Operation.newBuilder()
                            .setType(Offer.Operation.Type.LAUNCH)
                            .setLaunch(
                                Offer.Operation.Launch.newBuilder()
                                    .addTaskInfos(
                                        TaskInfo.newBuilder()
                                            .setName("train")
                                            .setTaskId(TaskID.newBuilder().setValue("t1"))
                                            .setAgentId(AgentID.newBuilder().setValue("m-S0"))
                                            .addResources(
                                                Resource.newBuilder()
                                                    .setName("gpus")
                                                    .setType(Value.Type.SCALAR)
                                                    .setScalar(
                                                        Value.Scalar.newBuilder().setValue(2)))
                                            .putLimits(
                                                "cpus",
                                                Value.Scalar.newBuilder()
                                                    .setValue(Double.POSITIVE_INFINITY)
                                                    .build()))))
                    .setFilters(Filters.newBuilder().setRefuseSeconds(30)))
            .build();
    assertThat(MesosJson.parse(MesosJson.print(accept), Call.getDefaultInstance()))
        .isEqualTo(accept);
  }

  @Test
  void realEventsRoundTrip() throws Exception {
    Event offers =
        Event.newBuilder()
            .setType(Event.Type.OFFERS)
            .setOffers(
                Event.Offers.newBuilder()
                    .addOffers(
                        Offer.newBuilder()
                            .setId(OfferID.newBuilder().setValue("m-O7"))
                            .setFrameworkId(FrameworkID.newBuilder().setValue("m-0001"))
                            .setAgentId(AgentID.newBuilder().setValue("m-S0"))
                            .setHostname("node-1")
                            .addResources(
                                Resource.newBuilder()
                                    .setName("ports")
                                    .setType(Value.Type.RANGES)
                                    .setRanges(
                                        Value.Ranges.newBuilder()
                                            .addRange(
                                                Value.Range.newBuilder()
                                                    .setBegin(31000)
                                                    .setEnd(32000))))))
            .build();
    String json = MesosJson.print(offers);
    assertThat(json).contains("\"range\":[{\"begin\":31000,\"end\":32000}]");
    assertThat(MesosJson.parse(json, Event.getDefaultInstance())).isEqualTo(offers);

    Event update =
        Event.newBuilder()
            .setType(Event.Type.UPDATE)
            .setUpdate(
                Event.Update.newBuilder()
                    .setStatus(
                        status().toBuilder()
                            .setSource(TaskStatus.Source.SOURCE_EXECUTOR)
                            .setTimestamp(1.7e9)
                            .setUuid(ByteString.copyFrom(new byte[16]))
                            .setLabels(
                                Labels.newBuilder()
                                    .addLabels(
                                        Label.newBuilder()
                                            .setKey("acceld.io/devices")
                                            .setValue("GPU-1,GPU-2")))))
            .build();
    assertThat(MesosJson.parse(MesosJson.print(update), Event.getDefaultInstance()))
        .isEqualTo(update);

    io.acceld.proto.mesos.v1.executor.Event launch =
        io.acceld.proto.mesos.v1.executor.Event.newBuilder()
            .setType(io.acceld.proto.mesos.v1.executor.Event.Type.LAUNCH)
            .setLaunch(
                io.acceld.proto.mesos.v1.executor.Event.Launch.newBuilder()
                    .setTask(
                        TaskInfo.newBuilder()
                            .setName("n")
                            .setTaskId(TaskID.newBuilder().setValue("t"))
                            .setAgentId(AgentID.newBuilder().setValue("a"))
                            .setData(ByteString.copyFromUtf8("payload"))))
            .build();
    assertThat(
            MesosJson.parse(
                MesosJson.print(launch),
                io.acceld.proto.mesos.v1.executor.Event.getDefaultInstance()))
        .isEqualTo(launch);
  }
}
