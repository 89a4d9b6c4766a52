package io.acceld.mesos.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import java.io.IOException;

/**
 * Calls in, events out, in either of the two media types. The error texts are Mesos's own ({@code
 * apache/mesos:src/master/http.cpp} and {@code src/slave/http.cpp}), so a client sees what it would
 * see from Mesos.
 */
public final class MesosCodec {
  private MesosCodec() {}

  /** A scheduler {@code Call} from a request body. */
  public static io.acceld.proto.mesos.v1.scheduler.Call decodeSchedulerCall(
      byte[] body, MediaType type) throws CallDecodeException {
    return decode(body, type, io.acceld.proto.mesos.v1.scheduler.Call.getDefaultInstance());
  }

  /** An executor {@code Call} from a request body. */
  public static io.acceld.proto.mesos.v1.executor.Call decodeExecutorCall(
      byte[] body, MediaType type) throws CallDecodeException {
    return decode(body, type, io.acceld.proto.mesos.v1.executor.Call.getDefaultInstance());
  }

  /** A message of {@code prototype}'s type from {@code body} encoded as {@code type}. */
  @SuppressWarnings("unchecked")
  public static <T extends Message> T decode(byte[] body, MediaType type, T prototype)
      throws CallDecodeException {
    switch (type) {
      case JSON -> {
        Object json;
        try {
          json = MesosJson.readTree(body);
        } catch (JsonProcessingException e) {
          throw new CallDecodeException(
              "Failed to parse body into JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
          throw new CallDecodeException("Failed to parse body into JSON: " + e.getMessage());
        }
        if (json == null) {
          throw new CallDecodeException("Failed to parse body into JSON: empty body");
        }
        try {
          return MesosJson.parse(json, prototype);
        } catch (MesosJsonException e) {
          throw new CallDecodeException(
              "Failed to convert JSON into Call protobuf: " + e.getMessage());
        }
      }
      case PROTOBUF -> {
        try {
          return (T) prototype.getParserForType().parseFrom(body);
        } catch (InvalidProtocolBufferException e) {
          throw new CallDecodeException("Failed to parse body into Call protobuf");
        }
      }
    }
    throw new IllegalArgumentException("unknown media type " + type);
  }

  /** {@code message} encoded as {@code type}: ASCII-safe compact JSON, or protobuf bytes. */
  public static byte[] encode(MessageOrBuilder message, MediaType type) {
    return switch (type) {
      case JSON -> MesosJson.printBytes(message);
      case PROTOBUF ->
          message instanceof Message m
              ? m.toByteArray()
              : ((Message.Builder) message).build().toByteArray();
    };
  }
}
